/**
 * Entry of the inspector page's one script. In the page it starts the app; inside a worker (started from a Blob
 * URL of this same script's text, so the single HTML file needs no second file) it answers the page's requests.
 */
import { App } from "./ui/app.js";
import { startWorker } from "./worker/worker.js";

declare const self: { postMessage(message: unknown): void; onmessage: ((event: MessageEvent) => void) | null };

if (typeof document === "undefined") {
  startWorker(self);
} else {
  const text = document.currentScript?.textContent ?? "";
  const scriptUrl = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  const start = () => {
    const app = new App(scriptUrl);
    (globalThis as { __inspector?: App }).__inspector = app;
    void app.start();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}
