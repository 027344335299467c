import { badge, h } from '../dom';
import { formatScore, type ScoreCell } from '../view-models';

/** One evaluation: its score, and its reason on demand (a disclosure the keyboard opens). */
function scoreItem(cell: ScoreCell, showTurn: boolean): HTMLElement {
  const turn = showTurn && cell.turnIndex !== null ? `turn ${cell.turnIndex}: ` : '';
  const head =
    cell.status === 'SUCCESS'
      ? h(
          'span',
          { class: 'score-value' },
          turn,
          formatScore(cell.score),
          cell.passed === false ? h('span', { class: 'not-passed' }, ' did not pass') : null,
        )
      : h('span', { class: 'score-value' }, turn, badge(cell.status));
  const attrs = {
    class: `score${cell.passed === false ? ' score-not-passed' : ''}`,
    'data-testid': 'score',
    'data-status': cell.status,
    'data-passed': cell.passed === null ? null : String(cell.passed),
  };
  if (!cell.reason) return h('div', attrs, head);
  return h(
    'details',
    attrs,
    h('summary', { title: 'Show the reason' }, head),
    h('p', { class: 'reason', 'data-testid': 'reason' }, cell.reason),
  );
}

/** A table cell's scores: one per evaluation (a turn each, or the whole session), or `—`. */
export function scoresView(cells: ScoreCell[] | undefined): HTMLElement | string {
  if (!cells?.length) return '—';
  if (cells.length === 1) return scoreItem(cells[0]!, false);
  return h(
    'div',
    { class: 'scores' },
    cells.map((c) => scoreItem(c, true)),
  );
}
