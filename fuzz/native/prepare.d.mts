// Types of prepare.mjs for the TypeScript tests.
export declare function addonPath(): string;
export declare function weakenVersionNeeds(bytes: Uint8Array, names: Set<string>): string[];
export declare function prepareJazzer(options?: { quiet?: boolean }): Record<string, string>;
