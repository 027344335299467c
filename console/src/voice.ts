import { facts, h, svg, table } from './dom';
import {
  bargeInText,
  type Bar,
  clockLabel,
  ratio,
  type RunVoice,
  runVoiceRows,
  type SessionVoice,
  timelineOf,
  timelineSummary,
} from './voice-layout';

/** The drawing of a call's timeline (who spoke when) and a run's voice figures (laid out in voice-layout.ts). */

const LABEL_W = 64;
const LANE_H = 22;
const GAP = 8;

/**
 * The timeline drawing: a lane per side, the overlaps marked across both, a time axis. Clicking
 * the drawing moves `audio` (the call recording's player) to that moment.
 */
export function timelineView(voice: SessionVoice, audio: HTMLAudioElement | null, width = 900): HTMLElement {
  const laneWidth = width - LABEL_W - 8;
  const t = timelineOf(voice.segments, laneWidth);
  const agentY = 4;
  const userY = agentY + LANE_H + GAP;
  const axisY = userY + LANE_H + 6;
  const height = axisY + 18;
  const rects = (bars: Bar[], y: number, cls: string, who: string) =>
    bars.map((b) =>
      svg(
        'rect',
        { x: LABEL_W + b.x, y, width: b.width, height: LANE_H, class: cls, 'data-start-ms': b.startMs },
        svg('title', {}, `${who}: ${clockLabel(b.startMs, 100)}–${clockLabel(b.endMs, 100)}`),
      ),
    );
  const drawing = svg(
    'svg',
    {
      viewBox: `0 0 ${width} ${height}`,
      width: '100%',
      class: 'voice-timeline',
      role: 'img',
      'aria-label': `Who spoke when. ${timelineSummary(voice)}`,
      'data-testid': 'voice-timeline',
    },
    svg('text', { x: 0, y: agentY + 15, class: 'voice-lane-label' }, 'Agent'),
    svg('text', { x: 0, y: userY + 15, class: 'voice-lane-label' }, 'Caller'),
    svg('rect', { x: LABEL_W, y: agentY, width: laneWidth, height: LANE_H, class: 'voice-lane' }),
    svg('rect', { x: LABEL_W, y: userY, width: laneWidth, height: LANE_H, class: 'voice-lane' }),
    ...rects(t.agent, agentY, 'voice-agent', 'Agent'),
    ...rects(t.user, userY, 'voice-user', 'Caller'),
    ...t.overlaps.map((b) =>
      svg(
        'rect',
        {
          x: LABEL_W + b.x,
          y: agentY,
          width: b.width,
          height: userY + LANE_H - agentY,
          class: 'voice-overlap',
          'data-testid': 'voice-overlap',
        },
        svg('title', {}, `Both spoke: ${clockLabel(b.startMs, 100)}–${clockLabel(b.endMs, 100)}`),
      ),
    ),
    ...t.ticks.map((tick) =>
      svg('text', { x: LABEL_W + tick.x, y: axisY + 12, 'text-anchor': 'middle', class: 'voice-tick' }, tick.label),
    ),
  );
  if (audio)
    drawing.addEventListener('click', (event) => {
      const box = drawing.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * width - LABEL_W;
      if (x < 0 || x > laneWidth) return;
      audio.currentTime = ((x / laneWidth) * t.totalMs) / 1000;
    });
  return h(
    'figure',
    { class: 'voice-figure' },
    drawing,
    h(
      'figcaption',
      { class: 'muted' },
      h('span', { class: 'voice-key voice-agent' }),
      ' agent ',
      h('span', { class: 'voice-key voice-user' }),
      ' caller ',
      h('span', { class: 'voice-key voice-overlap' }),
      ' both at once',
      voice.segments.truncated ? ' · only the first segments of each side are drawn' : '',
      audio ? ' · click to play from there' : '',
    ),
  );
}

/** A run's voice figures: each figure's p50 and p95 over its sessions, the interruption rate and the barge-in recovery. */
export function runVoiceView(voice: RunVoice): HTMLElement {
  const rows = runVoiceRows(voice);
  const none = rows.every(([, p50]) => p50 === '—');
  return h(
    'div',
    { 'data-testid': 'run-voice' },
    none
      ? h(
          'p',
          { 'data-state': 'empty' },
          'No call of this run has voice figures yet (they come once its recording is analysed).',
        )
      : table('Voice figures over the run’s calls', ['Figure', 'p50', 'p95'], rows),
    facts([
      ['Calls with an agent interruption', ratio(voice.interruptionRate)],
      ['Barge-in recovery', bargeInText(voice.bargeInRecovery)],
    ]),
  );
}
