// Types of laws.mjs for the TypeScript tests.
export declare const CALL_LIMIT_MS: number;
export declare const MEMORY_ALLOWANCE_BYTES: number;
export declare const MEMORY_INPUT_FACTOR: number;
export declare class LawError extends Error {
  law: string;
}
export interface LawOptions {
  callLimitMs?: number;
  memory?: boolean;
  lazy?: boolean;
  copyingSource?: boolean;
}
export declare function lawFormats(lib: object): string[];
export declare function stableJson(value: unknown, options?: { withoutLayout?: boolean }): string;
export declare function tensorDigest(tensors: readonly { name: string; dtype: string; shape: number[]; data: ArrayBufferView }[]): string[];
export declare function checkFormatLaws(lib: object, format: string, input: Uint8Array, options?: LawOptions): Promise<string>;
export declare function checkAnyLaws(lib: object, input: Uint8Array, options?: LawOptions): Promise<string>;
export declare function inputForms(bytes: Uint8Array): [string, Uint8Array][];
export declare function checkInputForms(check: (input: Uint8Array) => Promise<string>, bytes: Uint8Array, label?: string): Promise<string>;
