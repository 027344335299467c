import { badge, facts, h, named, table } from '../dom';
import {
  formatMs,
  formatScore,
  formatTime,
  href,
  spanTree,
  type Evaluation,
  type Session,
  type SpanNode,
  type TestCase,
  type Turn,
} from '../view-models';
import { timelineView } from '../voice';
import { sessionVoiceFacts } from '../voice-layout';
import type { PageContext } from './context';
import { nameOf } from './runs';

interface SessionNames {
  version: string;
  run: string | null;
  test: string | null;
  testCase: TestCase | null;
}

function sessionFacts(session: Session, names: SessionNames): HTMLElement {
  const pairs: [string, Node | string][] = [
    ['Status', badge(session.status)],
    ['Kind', session.isProduction ? 'production traffic' : 'test'],
    ['Version', named(names.version, session.versionId)],
  ];
  if (session.runId)
    pairs.push([
      'Run',
      named(names.run ?? session.runId, session.runId, href({ page: 'run', id: session.runId, offset: 0 })),
    ]);
  if (session.testId) pairs.push(['Test', named(names.test ?? session.testId, session.testId)]);
  if (session.testCaseId)
    pairs.push([
      'Test case',
      named(names.testCase ? `Case ${names.testCase.index}` : session.testCaseId, session.testCaseId),
    ]);
  if (session.repetition && session.repetition > 1) pairs.push(['Repetition', String(session.repetition)]);
  if (session.customId) pairs.push(['Custom id', session.customId]);
  pairs.push(
    ['Created', formatTime(session.createdAt)],
    ['Last turn', formatTime(session.lastTurnAt)],
    ['Closed', formatTime(session.closedAt)],
  );
  if (session.stoppingReason) pairs.push(['Stopping reason', session.stoppingReason]);
  if (session.error) pairs.push(['Error', session.error]);
  if (Object.keys(session.metadata).length)
    pairs.push(['Metadata', h('pre', {}, JSON.stringify(session.metadata, null, 2))]);
  return facts(pairs);
}

/** An audio player of a stored file; a note when it cannot be read (not written yet, or gone). */
async function player(ctx: PageContext, uri: unknown, label: string): Promise<HTMLElement | null> {
  if (typeof uri !== 'string' || uri === '') return null;
  try {
    const src = await ctx.api.downloadUrl(uri);
    return h('audio', { controls: '', preload: 'none', src, 'aria-label': label, 'data-testid': 'audio' });
  } catch {
    return h('p', { class: 'muted' }, `${label}: not available`);
  }
}

/** Each turn's audio (a voice run's turns keep both utterances), by turn id. */
async function turnAudio(ctx: PageContext, turns: Turn[]): Promise<Map<string, (HTMLElement | null)[]>> {
  const out = new Map<string, (HTMLElement | null)[]>();
  await Promise.all(
    turns.map(async (t) => {
      const meta = t.metadata;
      if (!meta.userAudioUri && !meta.agentAudioUri) return;
      out.set(
        t.id,
        await Promise.all([
          player(ctx, meta.userAudioUri, `Turn ${t.index}, what was said`),
          player(ctx, meta.agentAudioUri, `Turn ${t.index}, the agent's answer`),
        ]),
      );
    }),
  );
  return out;
}

function turnsView(turns: Turn[], audio: Map<string, (HTMLElement | null)[]> = new Map()): HTMLElement {
  if (turns.length === 0) return h('p', { 'data-state': 'empty' }, 'No turn recorded.');
  return h(
    'ol',
    { class: 'turns', 'data-testid': 'turns' },
    turns.map((t) =>
      h(
        'li',
        { class: 'turn' },
        h(
          'p',
          { class: 'turn-meta' },
          `Turn ${t.index} · ${formatMs(t.latencyMs)} · ${t.usage.inputTokens} in / ${t.usage.outputTokens} out tokens`,
        ),
        h(
          'div',
          { class: 'said user' },
          h('span', { class: 'who' }, 'User'),
          h('p', {}, t.input),
          audio.get(t.id)?.[0] ?? null,
        ),
        h(
          'div',
          { class: 'said agent' },
          h('span', { class: 'who' }, 'Agent'),
          h('p', {}, t.output ?? '(no output)'),
          audio.get(t.id)?.[1] ?? null,
        ),
        t.retrievalContext?.length
          ? h(
              'details',
              {},
              h('summary', {}, `Retrieval context (${t.retrievalContext.length})`),
              h(
                'ul',
                {},
                t.retrievalContext.map((c) => h('li', {}, c)),
              ),
            )
          : null,
      ),
    ),
  );
}

function spanItem(node: SpanNode, totalMs: number): HTMLElement {
  const { span } = node;
  const left = totalMs > 0 && node.offsetMs !== null ? (node.offsetMs / totalMs) * 100 : 0;
  const width = totalMs > 0 && node.durationMs !== null ? Math.max(0.5, (node.durationMs / totalMs) * 100) : 0;
  const timing =
    node.offsetMs === null
      ? formatMs(node.durationMs)
      : `starts at +${formatMs(node.offsetMs)}, takes ${formatMs(node.durationMs)}`;
  return h(
    'li',
    {
      class: 'span-node',
      'data-testid': 'span',
      'data-span-id': span.id,
      'data-depth': node.depth,
      'aria-label': `${span.name} (${span.type}), ${timing}`,
    },
    h(
      'div',
      { class: 'span-row' },
      h('span', { class: 'span-name' }, span.name),
      h('span', { class: 'span-type' }, span.type),
      h('span', { class: 'span-time' }, timing),
      h(
        'span',
        { class: 'span-bar-track', 'aria-hidden': 'true' },
        h('span', {
          class: `span-bar${span.error ? ' span-bar-error' : ''}`,
          style: `margin-left:${left.toFixed(2)}%;width:${width.toFixed(2)}%`,
        }),
      ),
    ),
    span.error ? h('p', { class: 'span-error' }, `Error: ${span.error}`) : null,
    node.children.length
      ? h(
          'ul',
          { role: 'group' },
          node.children.map((c) => spanItem(c, totalMs)),
        )
      : null,
  );
}

function evaluationsView(evaluations: Evaluation[], turns: Turn[]): HTMLElement {
  if (evaluations.length === 0) return h('p', { 'data-state': 'empty' }, 'No evaluation of this session.');
  const turnIndex = new Map(turns.map((t) => [t.id, t.index]));
  return table(
    'Evaluations',
    ['Metric', 'Turn', 'Status', 'Score', 'Reason'],
    evaluations.map((e) => [
      e.metricName ?? e.metricId,
      e.inferenceResultId ? String(turnIndex.get(e.inferenceResultId) ?? e.inferenceResultId) : 'whole session',
      badge(e.status),
      formatScore(e.humanScore ?? e.score),
      e.error ?? e.humanReason ?? e.reason ?? '—',
    ]),
    { 'data-testid': 'evaluations' },
    [4],
  );
}

/** How the call sounded: the timeline of who spoke when and the figures; why there are none; or that they are coming. */
function voiceView(session: Session, audio: HTMLAudioElement | null): HTMLElement {
  if (session.voice)
    return h(
      'div',
      { 'data-testid': 'session-voice' },
      h('h3', {}, 'Who spoke when'),
      timelineView(session.voice, audio),
      facts(sessionVoiceFacts(session.voice)),
    );
  if (session.voiceError)
    return h('p', { 'data-testid': 'session-voice', 'data-state': 'empty' }, `No voice figures: ${session.voiceError}`);
  return h(
    'p',
    { 'data-testid': 'session-voice', 'data-state': 'pending' },
    'The recording is being analysed: reload for who spoke when.',
  );
}

/** `#/sessions/{id}`: the session, its turns, its spans as a tree with timings, its evaluations with reasons. */
export async function sessionPage(ctx: PageContext, id: string): Promise<void> {
  const session = await ctx.api.getSession(id);
  const [turns, spans, evaluations, version, run, test, testCase] = await Promise.all([
    ctx.api.sessionTurns(id),
    ctx.api.sessionSpans(id),
    ctx.api.sessionEvaluations(id),
    nameOf(ctx.api.getVersion, session.versionId),
    session.runId ? nameOf(ctx.api.getRun, session.runId) : Promise.resolve(null),
    session.testId ? nameOf(ctx.api.getTest, session.testId) : Promise.resolve(null),
    session.testId && session.testCaseId
      ? ctx.api
          .testCases([session.testId], [session.testCaseId])
          .then((cases) => cases[0] ?? null)
          .catch(() => null)
      : Promise.resolve(null),
  ]);
  turns.sort((a, b) => a.index - b.index);
  const tree = spanTree(spans);
  const [recording, audio] = await Promise.all([
    player(ctx, session.recordingUri, 'Call recording'),
    turnAudio(ctx, turns),
  ]);
  ctx.show(
    `Session ${session.id}`,
    sessionFacts(session, { version, run, test, testCase }),
    recording
      ? h(
          'section',
          { 'aria-labelledby': 'recording-h', 'data-testid': 'recording' },
          h('h2', { id: 'recording-h' }, 'Call recording'),
          h(
            'p',
            { class: 'muted' },
            session.isProduction
              ? 'Stereo: the agent on the left, the caller on the right.'
              : 'Stereo: the agent on the left, the caller (this service) on the right.',
          ),
          recording,
          voiceView(session, recording instanceof HTMLAudioElement ? recording : null),
        )
      : null,
    h(
      'section',
      { 'aria-labelledby': 'turns-h' },
      h('h2', { id: 'turns-h' }, `Turns (${turns.length})`),
      turnsView(turns, audio),
    ),
    h(
      'section',
      { 'aria-labelledby': 'spans-h' },
      h('h2', { id: 'spans-h' }, `Spans (${spans.length})`),
      spans.length
        ? h(
            'ul',
            { class: 'span-tree', 'data-testid': 'span-tree', 'aria-labelledby': 'spans-h' },
            tree.roots.map((n) => spanItem(n, tree.totalMs)),
          )
        : h('p', { 'data-state': 'empty' }, 'No span recorded.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'evaluations-h' },
      h('h2', { id: 'evaluations-h' }, `Evaluations (${evaluations.length})`),
      evaluationsView(evaluations, turns),
    ),
  );
}
