import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axisLabels, type FamilySeries, type Marker } from './view-models';

const LINE = '#1f5fbf';
const BAND = 'rgba(31, 95, 191, 0.18)';
const MARKER_COLOURS: Record<Marker['kind'], string> = { revision: '#a33b00', sampling: '#5b3fa0' };

/** Draws each marker as a vertical line over the plot (revision: dashed, sampling: dotted). */
function markersPlugin(markers: Marker[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.lineWidth = 2 * uPlot.pxRatio;
        for (const m of markers) {
          const x = Math.round(u.valToPos(m.at, 'x', true));
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.strokeStyle = MARKER_COLOURS[m.kind];
          ctx.setLineDash(
            m.kind === 'revision' ? [8 * uPlot.pxRatio, 4 * uPlot.pxRatio] : [2 * uPlot.pxRatio, 3 * uPlot.pxRatio],
          );
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
        }
        ctx.restore();
      },
    },
  };
}

/**
 * Each day's 95% interval as a whisker too: the band fills between consecutive days, so a day
 * with no scored neighbour would otherwise show no interval at all.
 */
function whiskersPlugin(series: FamilySeries): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx } = u;
        const cap = 4 * uPlot.pxRatio;
        ctx.save();
        ctx.strokeStyle = LINE;
        ctx.lineWidth = 1.5 * uPlot.pxRatio;
        series.x.forEach((x, i) => {
          const lower = series.lower[i];
          const upper = series.upper[i];
          if (lower === null || lower === undefined || upper === null || upper === undefined) return;
          const cx = Math.round(u.valToPos(x, 'x', true));
          const top = u.valToPos(upper, 'y', true);
          const bottom = u.valToPos(lower, 'y', true);
          ctx.beginPath();
          ctx.moveTo(cx, top);
          ctx.lineTo(cx, bottom);
          ctx.moveTo(cx - cap, top);
          ctx.lineTo(cx + cap, top);
          ctx.moveTo(cx - cap, bottom);
          ctx.lineTo(cx + cap, bottom);
          ctx.stroke();
        });
        ctx.restore();
      },
    },
  };
}

/** Day ticks: every bucket when there is room, else every n-th; labelled `MM-DD` (UTC). */
function dayAxis(series: FamilySeries): uPlot.Axis {
  return {
    splits: (u) => {
      const room = Math.max(1, Math.floor(u.bbox.width / uPlot.pxRatio / 48));
      const step = Math.max(1, Math.ceil(series.x.length / room));
      return series.x.filter((_, i) => (series.x.length - 1 - i) % step === 0);
    },
    values: (_u, splits) => splits.map((t) => new Date(t * 1000).toISOString().slice(5, 10)),
  };
}

export interface ScoreChart {
  element: HTMLElement;
  plot: uPlot;
}

/**
 * One family's daily score line with its 95% band (between the upper and lower series, and a
 * whisker per day), the
 * days still collecting data as hollow rings, and the markers as vertical lines. The instance is
 * kept on the element (`__uplot`) so the browser tests can read what was drawn.
 */
export function scoreChart(
  container: HTMLElement,
  series: FamilySeries,
  markers: Marker[],
  range: { from: number; to: number },
  title: string,
): ScoreChart {
  const width = () => Math.max(280, Math.floor(container.clientWidth || 600));
  const options: uPlot.Options = {
    title,
    width: width(),
    height: 240,
    scales: { x: { time: true, range: [range.from, range.to] }, y: { range: [0, 1] } },
    series: [
      { label: 'day' },
      { label: 'score', stroke: LINE, width: 2, spanGaps: false, points: { show: true, size: 6, fill: LINE } },
      { label: '95% upper', stroke: BAND, width: 1, points: { show: false } },
      { label: '95% lower', stroke: BAND, width: 1, points: { show: false } },
      {
        label: 'collecting data',
        stroke: LINE,
        paths: () => null,
        points: { show: true, size: 11, width: 2, fill: '#ffffff', stroke: LINE },
      },
    ],
    bands: [{ series: [2, 3], fill: BAND }],
    axes: [dayAxis(series), { values: (_u, splits) => axisLabels(splits) }],
    plugins: [whiskersPlugin(series), markersPlugin(markers)],
  };
  const data: uPlot.AlignedData = [series.x, series.score, series.upper, series.lower, series.collecting];
  const plot = new uPlot(options, data, container);
  plot.root.setAttribute('aria-hidden', 'true');
  (container as HTMLElement & { __uplot?: uPlot }).__uplot = plot;
  container.dataset.markers = String(markers.length);
  const observer = new ResizeObserver(() => {
    if (!plot.root.isConnected) return observer.disconnect();
    if (plot.width !== width()) plot.setSize({ width: width(), height: 240 });
  });
  observer.observe(container);
  return { element: container, plot };
}
