// The Performance view's sections under the charts: the top rows (or movers),
// Google's known anomalies over the window with their sentences, the team's
// notes (numbered as their markers on the charts; text as written, inserted as
// text) and the data-truth notes of the tool's answer.
import { count, el, percent, position, signed } from './dom.js';
import { type Analytics, type Annotation, METRIC_LABEL } from './performance-data.js';

export function movers(data: Analytics): HTMLElement | null {
  if (!data.rows.length || !data.dimensions.length) {
    return null;
  }
  const rows = data.rows.slice(0, 10);
  const head = data.compare ? ['Clicks', 'Δ clicks', 'Impressions', 'Δ impressions'] : ['Clicks', 'Impressions', 'CTR', 'Position'];
  return el(
    'section',
    { class: 'movers' },
    el('h2', {}, data.compare ? 'Top movers' : 'Top rows'),
    el(
      'table',
      {},
      el('thead', {}, el('tr', {}, el('th', {}, data.dimensions.join(' · ')), ...head.map((h) => el('th', { class: 'num' }, h)))),
      el(
        'tbody',
        {},
        ...rows.map((r) =>
          el(
            'tr',
            {},
            el('td', { class: 'key' }, r.keys.join(' · '), r.only_in ? el('span', { class: 'tag' }, `only in ${r.only_in}`) : null),
            ...(data.compare
              ? [
                  num(r.clicks),
                  el('td', { class: 'num' }, r.delta ? signed(r.delta.clicks) : '—'),
                  num(r.impressions),
                  el('td', { class: 'num' }, r.delta ? signed(r.delta.impressions) : '—'),
                ]
              : [
                  num(r.clicks),
                  num(r.impressions),
                  el('td', { class: 'num' }, r.ctr === undefined ? '—' : percent(r.ctr)),
                  el('td', { class: 'num' }, r.position === undefined ? '—' : position(r.position)),
                ]),
          ),
        ),
      ),
    ),
  );
}

const LEFT_OUT: Record<string, string> = {
  not_final: 'not final yet',
  outside_retention: 'older than Google keeps',
  not_in_other_window: 'so that day i still matches day i of the other window',
};

const num = (n: number | undefined) => el('td', { class: 'num' }, n === undefined ? '—' : count(n));

export function truthNotes(data: Analytics): HTMLElement {
  const t = data.data_truth;
  const notes: string[] = [`Window ${t.start_date} – ${t.end_date}, ${t.time_zone} days; data_state ${t.data_state}.`];
  if (t.hour_offsets?.length) {
    notes.push(`Hours are ${t.time_zone} wall-clock hours; Google keys them with the UTC offset ${t.hour_offsets.join(' then ')}.`);
  }
  if (t.window_note) {
    notes.push(`Window: ${t.window_note}.`);
  }
  if (t.data_state_note) {
    notes.push(t.data_state_note);
  }
  if (!data.totals && data.rows_sum) {
    notes.push('The totals are the sum of the rows returned, not the property total.');
  }
  if (t.freshness === 'final') {
    notes.push('Every day shown is final.');
  }
  if (t.first_incomplete_hour) {
    notes.push(`From ${t.first_incomplete_hour} Google is still collecting: those hours are incomplete (drawn hollow).`);
  } else if (t.first_incomplete_date) {
    notes.push(
      data.compare
        ? `From ${t.first_incomplete_date} Google is still collecting: those days are left out of the comparison.`
        : `From ${t.first_incomplete_date} Google is still collecting: those days are incomplete (drawn hollow on the dotted stretch of the line).`,
    );
  }
  if (t.freshness_unknown) {
    notes.push(`Freshness unknown: ${t.freshness_unknown}`);
  }
  if (t.row_cap_reached) {
    notes.push(`Google's row cap (${count(t.row_cap)}) was reached: rows below it are not listed.`);
  }
  if (t.row_sum_caveats.includes('anonymised_queries_left_out')) {
    notes.push('Rows grouped by query leave out anonymised queries, so they do not add up to the property total.');
  }
  if (t.row_sum_caveats.includes('counted_per_page')) {
    notes.push('Grouped by page, impressions are counted per page: rows can add up to more than the property total.');
  }
  const u = t.unattributed;
  if (u?.click_share !== undefined) {
    notes.push(
      `Not attributed to any listed query: ${percent(u.click_share)} of clicks, ${percent(u.impression_share ?? 0)} of impressions.`,
    );
  }
  if (u?.not_measured) {
    notes.push(`Share of anonymised queries not measured: ${u.not_measured}`);
  }
  for (const left of data.compare?.left_out ?? []) {
    notes.push(
      `Left out of the ${left.window} window: ${left.from_hour ? `from ${left.from_hour} to the end of ${left.end_date}` : `${left.start_date} – ${left.end_date}`} (${LEFT_OUT[left.reason] ?? left.reason}).`,
    );
  }
  return el('section', { class: 'truth' }, el('h2', {}, 'About these numbers'), el('ul', {}, ...notes.map((n) => el('li', {}, n))));
}

/** Google's announced anomalies overlapping the window: which metrics they make unreliable, for how many days, and why. */
export function anomalyLegend(data: Analytics): HTMLElement | null {
  const anomalies = data.data_truth.anomalies ?? [];
  if (!anomalies.length) {
    return null;
  }
  return el(
    'section',
    { class: 'anomalies', 'aria-label': 'Known Google data anomalies' },
    el('h2', {}, 'Known Google data anomalies in this window'),
    el(
      'ul',
      {},
      ...anomalies.map((a) =>
        el(
          'li',
          { 'data-anomaly': a.id },
          el('span', { class: 'swatch anomaly', 'aria-hidden': 'true' }),
          el('strong', {}, `Unreliable: ${a.affected.map((m) => METRIC_LABEL[m]).join(', ')}`),
          a.not_affected.length
            ? el('span', { class: 'muted' }, ` · fine: ${a.not_affected.map((m) => METRIC_LABEL[m]).join(', ')}`)
            : null,
          el('p', { class: 'summary' }, a.summary),
          el('p', { class: 'sentence muted' }, `${a.sentence} Source: ${a.source}`),
        ),
      ),
    ),
  );
}

/** The team's notes on days of the window, numbered as their markers: text as written, never markup. */
export function notesList(notes: readonly Annotation[]): HTMLElement | null {
  if (!notes.length) {
    return null;
  }
  return el(
    'section',
    { class: 'notes', 'aria-label': 'Team notes' },
    el('h2', {}, 'Team notes'),
    el(
      'ol',
      {},
      ...notes.map((note) =>
        el(
          'li',
          { 'data-annotation': note.id },
          el('span', { class: 'date' }, note.date),
          ' ',
          el('span', { class: 'note-text' }, note.text),
          note.tag ? el('span', { class: 'tag' }, note.tag) : null,
          note.author ? el('span', { class: 'muted small' }, ` · ${note.author}`) : null,
        ),
      ),
    ),
    el(
      'p',
      { class: 'muted small' },
      "Written by people using this server, not Google data; Search Console's own annotations are not in its API.",
    ),
  );
}
