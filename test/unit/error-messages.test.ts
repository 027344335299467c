import { describe, expect, it } from 'vitest';
import * as Type from '@sinclair/typebox';
import { nearestName, withNearMiss, withSuggestion } from '../../shared/schemas/describe.js';
import { wrongKindOfId } from '../../shared/domain/common/ids.js';
import { whereJsonFails } from '../../shared/http/handler.js';

/** Errors that say what to do: the nearest field, the near miss, the kind of id, where JSON breaks. */
describe('error messages', () => {
  const Body = Type.Object(
    {
      metricIds: Type.Array(Type.String()),
      versionId: Type.String(),
      labels: Type.Array(Type.Object({ metricId: Type.String(), score: Type.Number() })),
    },
    { additionalProperties: false },
  );

  it('finds the nearest allowed name: case, a typo, a missing plural; nothing for a far or an ambiguous one', () => {
    expect(nearestName('metricId', ['metricIds', 'versionId'])).toBe('metricIds');
    expect(nearestName('VersionID', ['metricIds', 'versionId'])).toBe('versionId');
    expect(nearestName('verisonId', ['metricIds', 'versionId'])).toBe('versionId');
    expect(nearestName('colour', ['metricIds', 'versionId'])).toBeUndefined();
    expect(nearestName('ab', ['ac', 'ad'])).toBeUndefined();
  });

  it('suggests the field an unknown one was meant to be, nested ones too', () => {
    expect(withSuggestion("unknown field 'metricId'", Body)).toBe(
      "unknown field 'metricId'; did you mean 'metricIds'?",
    );
    expect(withSuggestion("unknown field 'labels[0].metricIds'", Body)).toBe(
      "unknown field 'labels[0].metricIds'; did you mean 'labels[0].metricId'?",
    );
    expect(withSuggestion("unknown field 'colour'", Body)).toBe("unknown field 'colour'");
    expect(withSuggestion('score must be a number', Body)).toBe('score must be a number');
  });

  it('points a missing field at the near miss the request holds', () => {
    expect(withNearMiss('metricIds is required', Body, { metricId: ['met_x'], versionId: 'v' })).toBe(
      "metricIds is required; the body has 'metricId': did you mean 'metricIds'?",
    );
    expect(withNearMiss('labels[0].score is required', Body, { labels: [{ metricId: 'm', scroe: 1 }] })).toBe(
      "labels[0].score is required; the object has 'scroe': did you mean 'score'?",
    );
    expect(withNearMiss('metricIds is required', Body, { versionId: 'v' })).toBe('metricIds is required');
  });

  it('names the kind of id given and the kind needed', () => {
    expect(wrongKindOfId('mgrp_text_similarity', 'metric')).toBe(
      'mgrp_text_similarity is a metric family id (mgrp_…); a metric id (met_…) is needed',
    );
    expect(wrongKindOfId('ver_01ABC', 'product')).toBe(
      'ver_01ABC is a version id (ver_…); a product id (prod_…) is needed',
    );
    expect(wrongKindOfId('econ_1', 'endpoint connection')).toBeUndefined();
    expect(wrongKindOfId('nothing', 'metric')).toBeUndefined();
    expect(wrongKindOfId('zz_1', 'metric')).toBeUndefined();
  });

  it('says where a JSON body breaks, by line and column', () => {
    const fails = (raw: string) => {
      try {
        JSON.parse(raw);
      } catch (error) {
        return whereJsonFails(raw, error as Error);
      }
      throw new Error('parsed');
    };
    expect(fails('{"a": 1,\n  "b" 2}')).toBe("Expected ':' after property name at line 2, column 7");
    expect(fails('{"a": ')).toBe('it ends before its JSON value does (at line 1, column 7)');
    expect(fails('{"a": [1,]}')).toBe("unexpected token ']'");
  });
});
