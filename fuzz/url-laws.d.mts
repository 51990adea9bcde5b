// Types of url-laws.mjs for the TypeScript tests.
export declare const SLACK_BYTES: number;
export declare function checkUrlLaws(lib: object, data: Uint8Array, options?: { idleTimeoutMs?: number }): Promise<string>;
