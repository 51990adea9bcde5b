/**
 * The page's side of a worker: request(kind, …) returns a promise of the result, with progress and partial
 * results through callbacks. cancel() terminates the worker (whatever it is doing stops at once), rejects what
 * was pending with a CancelledError, and starts a fresh worker that reopens the same files on first use.
 */
import { CancelledError } from "../model/tensor-data.js";
import type { ErrorModel } from "../model/summary.js";
import type { Envelope, OpenInput, Reply, Request, Results, Slot, StatsPartial } from "./protocol.js";

export class WorkerError extends Error {
  constructor(readonly model: ErrorModel) {
    super(model.message);
    this.name = model.name;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: ((done: number, total: number, label: string) => void) | undefined;
  onPartial?: ((value: StatsPartial) => void) | undefined;
}

export interface RequestHooks {
  onProgress?: ((done: number, total: number, label: string) => void) | undefined;
  onPartial?: ((value: StatsPartial) => void) | undefined;
}

export class WorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly inputs = new Map<Slot, OpenInput>();
  private reopened = new Set<Slot>();

  constructor(
    private readonly scriptUrl: string,
    private readonly onFatal: (message: string) => void,
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.scriptUrl, { name: "tensorfile-inspector" });
    worker.onmessage = (event: MessageEvent) => this.receive(event.data as Reply);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const message = event.message || "the worker stopped";
      for (const p of this.pending.values()) p.reject(new Error(message));
      this.pending.clear();
      this.worker?.terminate();
      this.worker = undefined;
      this.reopened.clear();
      this.onFatal(message);
    };
    this.worker = worker;
    return worker;
  }

  private receive(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    switch (reply.kind) {
      case "progress":
        p.onProgress?.(reply.done, reply.total, reply.label);
        break;
      case "partial":
        p.onPartial?.(reply.value);
        break;
      case "done":
        this.pending.delete(reply.id);
        p.resolve(reply.value);
        break;
      case "error":
        this.pending.delete(reply.id);
        p.reject(new WorkerError(reply.error));
        break;
    }
  }

  private send<K extends Request["kind"]>(
    request: Extract<Request, { kind: K }>,
    hooks: RequestHooks = {},
  ): Promise<Results[K]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<Results[K]>((resolve, reject) => {
      this.pending.set(id, {
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress: hooks.onProgress,
        onPartial: hooks.onPartial,
      });
      worker.postMessage({ ...request, id } as Envelope);
    });
  }

  /** Opens a file in a slot (a: the file shown, b: the other file of a diff). */
  async open(slot: Slot, input: OpenInput): Promise<Results["open"]> {
    this.inputs.set(slot, input);
    const result = await this.send({ kind: "open", slot, input });
    this.reopened.add(slot);
    return result;
  }

  /** A request that needs the files open: after a cancel the new worker opens them again first. */
  async request<K extends Exclude<Request["kind"], "open">>(
    request: Extract<Request, { kind: K }>,
    hooks: RequestHooks = {},
  ): Promise<Results[K]> {
    for (const [slot, input] of this.inputs) {
      if (!this.reopened.has(slot)) {
        await this.send({ kind: "open", slot, input });
        this.reopened.add(slot);
      }
    }
    return this.send(request, hooks);
  }

  /** Remembers a slot's file without opening it now: the first request that needs the worker opens it. */
  setInput(slot: Slot, input: OpenInput): void {
    this.inputs.set(slot, input);
    this.reopened.delete(slot);
  }

  /** Forgets a slot's file (the page closed it). */
  forget(slot: Slot): void {
    this.inputs.delete(slot);
    this.reopened.delete(slot);
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Stops whatever runs now; pending requests reject with a CancelledError. */
  cancel(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.reopened.clear();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new CancelledError());
  }

  dispose(): void {
    this.cancel();
  }
}
