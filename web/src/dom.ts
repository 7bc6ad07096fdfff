// A few lines of DOM building instead of a framework: the page is small, and every dependency would be
// shipped to each spectator's browser.

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);
/**
 * No `style`: the page's Content-Security-Policy (style-src 'self') blocks style attributes, so one
 * would be refused (and logged) on every render. Styles come from classes in styles.css, or from
 * CSSOM properties (el.style.width = ...), which the policy allows.
 */
export type Attrs = Readonly<Record<string, AttrValue>> & { readonly style?: never };

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child as readonly Child[]) append(parent, c);
    return;
  }
  parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
}

/** Builds an element: `on*` attributes become listeners, `value`/`checked` set the property, the rest attributes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs !== null) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
      else if (key === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value);
      else if (key === 'checked' && el instanceof HTMLInputElement) el.checked = value === true;
      else el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) append(el, child);
  return el;
}

/** Replaces an element's content. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  for (const child of children) append(el, child);
}

/** Runs `render` at most once per animation frame however many changes arrive (a busy book sends many). */
export function frameScheduler(render: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      render();
    });
  };
}

/** An input's trimmed text. */
export function text(input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  return input.value.trim();
}

/** An input's value as a whole number, or null when empty or not one. */
export function integer(input: HTMLInputElement): number | null {
  const raw = input.value.trim();
  if (raw === '' || !/^-?\d+$/.test(raw)) return null;
  return Number(raw);
}
