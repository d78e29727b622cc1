// Small DOM builders: text always goes in as text, never as HTML (memories are user data).

type Child = Node | string;

export function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
}

export function clear(node: HTMLElement): void {
  node.replaceChildren();
}

export function field(label: string, control: HTMLElement): HTMLElement {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

export function select(
  label: string,
  options: string[],
  value: string,
  changed: (value: string) => void,
): HTMLElement {
  const control = h("select", { name: label.toLowerCase() }) as HTMLSelectElement;
  for (const option of options) control.append(h("option", { value: option }, option || "any"));
  control.value = value;
  control.addEventListener("change", () => changed(control.value));
  return field(label, control);
}

export function bars(rows: [string, number][]): HTMLElement {
  const top = Math.max(1, ...rows.map(([, n]) => n));
  if (!rows.length) return h("p", { class: "empty" }, "Nothing yet.");
  return h(
    "ul",
    { class: "bars" },
    ...rows.map(([label, n]) => {
      const bar = h("span", { class: "bar" });
      bar.style.width = `${(100 * n) / top}%`;
      return h("li", {}, h("span", { class: "label" }, label), h("span", { class: "track" }, bar), h("span", { class: "num" }, String(n)));
    }),
  );
}
