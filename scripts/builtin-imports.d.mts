/** Types of builtin-imports.mjs, for its tests. */
export declare const builtinsWithoutFacades: { name: string; setup(build: unknown): void };
export declare function rewriteBuiltinImports(source: string): string;
