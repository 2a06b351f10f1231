/**
 * The slice of the DOM the web tools use on linkedom documents, typed here because the project
 * compiles without the browser DOM library.
 */
export interface DomElement {
  readonly nodeName: string;
  readonly textContent: string | null;
  readonly innerHTML: string;
  readonly classList: { contains(name: string): boolean };
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  remove(): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

export interface DomDocument {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  toString(): string;
}

/** linkedom's `parseHTML`, seen through the types above. */
export async function parseDocument(html: string): Promise<DomDocument> {
  const { parseHTML } = await import("linkedom");
  return (parseHTML(html) as unknown as { document: DomDocument }).document;
}
