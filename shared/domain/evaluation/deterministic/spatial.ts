/** Bounding boxes: intersection over union of the output's boxes and the expected ones. */
import { num } from '../reason-text.js';
import { parseJson } from './json.js';
import { type Finding, MetricInputError } from './result.js';

type Box = [number, number, number, number];

function boxesOf(text: string, what: string): Box[] {
  const value = parseJson(text, what);
  const isBox = (v: unknown): v is Box =>
    Array.isArray(v) && v.length === 4 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
  const list = isBox(value) ? [value] : Array.isArray(value) && value.every(isBox) ? (value as Box[]) : undefined;
  if (!list) throw new MetricInputError(`${what} must be a box [x1, y1, x2, y2] or a list of boxes`);
  list.forEach(([x1, y1, x2, y2], i) => {
    if (x2 < x1 || y2 < y1)
      throw new MetricInputError(
        `${what} has a box with x2 < x1 or y2 < y1 (box ${i + 1}: ${JSON.stringify(list[i])})`,
      );
  });
  return list;
}

export function iouOfBoxes(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = w * h;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union <= 0 ? 0 : inter / union;
}

/** The best pair of boxes and its IoU, with the words a reason uses for it. */
function bestBoxes(output: string, expected: string): { best: number; pair: string; counts: string } {
  const outs = boxesOf(output, 'actual_output');
  const exps = boxesOf(expected, 'expected_output');
  let best = 0;
  let at: [number, number] | undefined;
  outs.forEach((o, i) => {
    exps.forEach((e, j) => {
      const v = iouOfBoxes(o, e);
      if (at === undefined || v > best) [best, at] = [v, [i, j]];
    });
  });
  const label = (list: Box[], i: number, what: string) =>
    `${what}${list.length > 1 ? ` box ${i + 1}` : ''} ${JSON.stringify(list[i])}`;
  const counts = outs.length > 1 || exps.length > 1 ? `; ${outs.length} actual and ${exps.length} expected boxes` : '';
  const pair =
    best > 0
      ? `${label(outs, at![0], 'actual_output')} and ${label(exps, at![1], 'expected_output')}`
      : `no actual_output box overlaps ${exps.length > 1 ? 'an expected_output box' : 'the expected_output box'}`;
  return { best, pair, counts };
}

/** The best intersection-over-union between any output box and any expected box. */
export function iou(output: string, expected: string): number {
  return bestBoxes(output, expected).best;
}

export function spatialMatch(output: string, expected: string): number {
  return iou(output, expected) >= 0.5 ? 1 : 0;
}

export function iouFinding(output: string, expected: string): Finding {
  const b = bestBoxes(output, expected);
  return { score: b.best, detail: `${num(b.best)} (${b.best > 0 ? 'best pair: ' : ''}${b.pair}${b.counts})` };
}

export function spatialMatchFinding(output: string, expected: string): Finding {
  const b = bestBoxes(output, expected);
  const hit = b.best >= 0.5;
  return { score: hit ? 1 : 0, detail: `best IoU ${num(b.best)} ${hit ? '≥' : '<'} 0.5 (${b.pair}${b.counts})` };
}
