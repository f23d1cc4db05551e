// DOM helpers of the views. Text from Google or the public (queries, URLs,
// titles, messages) only ever goes in through textContent / createTextNode:
// there is no innerHTML anywhere in the views, so markup in a query is shown,
// never parsed.

type Child = Node | string | number | null | undefined | false;

/** An HTML element with attributes (set with setAttribute, never as markup) and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) {
      node.setAttribute(name, value);
    }
  }
  append(node, children);
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element, the same way. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | undefined> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces what a container shows. */
export function show(container: Element, ...children: Child[]): void {
  container.replaceChildren();
  append(container, children);
}

const counts = new Intl.NumberFormat('en-US');
export const count = (n: number) => counts.format(n);
export const percent = (ctr: number) => `${(ctr * 100).toFixed(2)}%`;
export const position = (p: number) => p.toFixed(1);

/** "+12" / "−3" with a class saying whether it is good. */
export function signed(n: number, digits = 0, goodWhenNegative = false): HTMLElement {
  const text = `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toFixed(digits)}`;
  const good = goodWhenNegative ? n < 0 : n > 0;
  return el('span', { class: n === 0 ? 'flat' : good ? 'up' : 'down' }, text);
}

/** A notice line (an error the tool answered, a refusal): its text as text. */
export function notice(text: string, kind: 'error' | 'note' = 'note'): HTMLElement {
  return el('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : undefined }, text);
}

export const textOf = (result: { content?: ReadonlyArray<{ type: string; text?: string }> }) =>
  (result.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('\n');
