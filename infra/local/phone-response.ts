import type { ChimeAction } from '../../shared/telephony/chime-events.js';

/**
 * Whether a call-control handler's answer is one the phone line can take, as Chime checks a SIP
 * media application's Lambda response before running it; what fails here is reported to the
 * handler as INVALID_LAMBDA_RESPONSE. A parameter of a known action is checked when the action
 * runs, and a bad one is an ACTION_FAILED, as Chime reports it.
 */

export interface ResponseError {
  type: string;
  message: string;
}

/** The actions the phone line carries out: those voice runs use. */
export const EMULATED_ACTIONS: readonly string[] = [
  'PlayAudio',
  'RecordAudio',
  'StartCallRecording',
  'Pause',
  'Hangup',
];

/** Chime's limits: 10 actions per response; 100 transaction attributes of at most 20 KB in all. */
const MAX_ACTIONS = 10;
const MAX_ATTRIBUTES = 100;
const MAX_ATTRIBUTE_BYTES = 20 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (type: string, message: string) => ({ error: { type, message } });

/**
 * The response's actions (undefined when it has none: the actions under way continue) and
 * transaction attributes (undefined when it has none: the stored ones stay), or what is wrong.
 */
export function checkResponse(
  response: unknown,
): { actions: ChimeAction[] | undefined; attributes: Record<string, string> | undefined } | { error: ResponseError } {
  if (!isObject(response)) return invalid('InvalidResponse', 'The response is not a JSON object.');
  if (response.SchemaVersion !== '1.0') return invalid('InvalidSchemaVersion', 'SchemaVersion must be "1.0".');

  let actions: ChimeAction[] | undefined;
  if (response.Actions !== undefined && response.Actions !== null) {
    if (!Array.isArray(response.Actions)) return invalid('InvalidResponse', 'Actions must be a list.');
    if (response.Actions.length > MAX_ACTIONS)
      return invalid('InvalidResponse', `A response holds at most ${MAX_ACTIONS} actions.`);
    actions = [];
    for (const action of response.Actions as unknown[]) {
      if (!isObject(action) || typeof action.Type !== 'string')
        return invalid('InvalidActionType', 'Every action needs a Type.');
      if (!EMULATED_ACTIONS.includes(action.Type))
        return invalid(
          'InvalidActionType',
          `The local phone line does not carry out ${action.Type} actions, only ${EMULATED_ACTIONS.join(', ')}.`,
        );
      if (action.Parameters !== undefined && !isObject(action.Parameters))
        return invalid('InvalidActionParameter', `The Parameters of ${action.Type} must be an object.`);
      actions.push({ ...action, Parameters: action.Parameters ?? {} } as ChimeAction);
    }
  }

  let attributes: Record<string, string> | undefined;
  if (response.TransactionAttributes !== undefined && response.TransactionAttributes !== null) {
    const given = response.TransactionAttributes;
    if (!isObject(given) || Object.values(given).some((v) => typeof v !== 'string'))
      return invalid('TransactionAttributesInvalid', 'TransactionAttributes must map names to strings.');
    if (Object.keys(given).length > MAX_ATTRIBUTES)
      return invalid(
        'TransactionAttributesInvalidMapSize',
        `Transaction Attributes has too many mappings. Maximum number of mappings is ${MAX_ATTRIBUTES}`,
      );
    if (Buffer.byteLength(JSON.stringify(given)) > MAX_ATTRIBUTE_BYTES)
      return invalid('TransactionAttributesInvalidSize', 'Transaction Attributes are larger than 20 KB.');
    attributes = given as Record<string, string>;
  }
  return { actions, attributes };
}
