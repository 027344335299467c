import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/api.js';
import { FLAG_OF_FIELD, inCliTerms } from '../../cli/flags.js';

describe('evalctl errors name its flags, not the API’s fields', () => {
  it('maps every field the CLI sets to its flag, through one table', () => {
    expect(FLAG_OF_FIELD).toEqual({
      versionId: '--version',
      testId: '--test',
      metricIds: '--metric',
      repetitions: '--repetitions',
      threshold: '--threshold',
      baseRunId: '--baseline',
    });
    expect(inCliTerms('versionId ver_nope does not name an existing version')).toBe(
      '--version ver_nope does not name an existing version',
    );
    expect(inCliTerms('testId: test test_X is PENDING; only SUCCESS tests can run')).toBe(
      '--test: test test_X is PENDING; only SUCCESS tests can run',
    );
    expect(inCliTerms('metricIds: mgrp_x is a metric family id (mgrp_…); a metric id (met_…) is needed')).toBe(
      '--metric: mgrp_x is a metric family id (mgrp_…); a metric id (met_…) is needed',
    );
    expect(inCliTerms('metricIds[1] must be an identifier (letters, digits, _ and -)')).toBe(
      '--metric #2 must be an identifier (letters, digits, _ and -)',
    );
    expect(inCliTerms('repetitions: a run may execute at most 5000 sessions')).toBe(
      '--repetitions: a run may execute at most 5000 sessions',
    );
    expect(inCliTerms('threshold must be at most 1')).toBe('--threshold must be at most 1');
    expect(inCliTerms('baseRunId: run run_nope not found')).toBe('--baseline: run run_nope not found');
  });

  it('says what to do when the test has nothing to score', () => {
    expect(
      inCliTerms(
        'metricIds: nothing to score: test test_X has no specification with linked metrics; link metrics to its specification or give metricIds',
      ),
    ).toBe(
      "nothing to score: pass --metric or link metrics to the test's specification (test test_X has no specification with linked metrics)",
    );
  });

  it('leaves other messages as they came: fields of other records, a field name inside a word', () => {
    for (const message of [
      'conversationEndpointConnectionId or phoneConnectionId: version ver_X has neither …',
      'run run_X is RUNNING; only finished runs (COMPLETED, FAILED or CANCELLED) can be compared',
      'testIdentity is not a field',
      'missing or invalid API key',
    ])
      expect(inCliTerms(message)).toBe(message);
  });

  it('an API error prints the request, the status and the message in CLI terms', () => {
    const error = new ApiError('POST /runs answered 400: versionId ver_nope does not name an existing version', {
      method: 'POST',
      path: '/runs',
      status: 400,
      detail: 'versionId ver_nope does not name an existing version',
    });
    expect(error.forCli()).toBe('POST /runs answered 400: --version ver_nope does not name an existing version');
    expect(new ApiError('cannot reach http://127.0.0.1:9: ECONNREFUSED').forCli()).toBe(
      'cannot reach http://127.0.0.1:9: ECONNREFUSED',
    );
  });
});
