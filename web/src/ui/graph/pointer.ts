/**
 * Pointer and keyboard on the graph canvas: drag pans, two pointers pinch-zoom, the wheel zooms smoothly about the
 * pointer (Shift+wheel pans sideways), a click selects, a double-click opens the weight row under the pointer;
 * +/−/0/Home/arrows from the keyboard.
 */
import type { Camera } from "./camera.js";

export interface PointerHost {
  readonly camera: Camera;
  requestDraw(): void;
  /** A click (no drag) at screen (x, y). */
  click(x: number, y: number): void;
  doubleClick(x: number, y: number): void;
  zoomAnimated(factor: number): void;
  fit(): void;
  home(): void;
}

export function wirePointer(canvas: HTMLCanvasElement, host: PointerHost): void {
  const camera = host.camera;
  const pointers = new Map<number, { x: number; y: number }>();
  let drag: { x: number; y: number; vx: number; vy: number; moved: boolean } | undefined;
  let pinch: { distance: number; scale: number } | undefined;
  canvas.addEventListener("pointerdown", (event) => {
    pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
    canvas.setPointerCapture(event.pointerId);
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { distance: Math.hypot(a!.x - b!.x, a!.y - b!.y) || 1, scale: camera.scale };
      drag = undefined;
    } else {
      drag = { x: event.clientX, y: event.clientY, vx: camera.x, vy: camera.y, moved: false };
    }
  });
  canvas.addEventListener("pointermove", (event) => {
    if (pointers.has(event.pointerId)) pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
    if (pinch && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const distance = Math.hypot(a!.x - b!.x, a!.y - b!.y) || 1;
      camera.zoomAt((pinch.scale * distance) / pinch.distance / camera.scale, (a!.x + b!.x) / 2, (a!.y + b!.y) / 2);
      host.requestDraw();
      return;
    }
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    camera.x = drag.vx + dx;
    camera.y = drag.vy + dy;
    host.requestDraw();
  });
  const release = (event: PointerEvent) => {
    pointers.delete(event.pointerId);
    if (pointers.size < 2) pinch = undefined;
  };
  canvas.addEventListener("pointercancel", (event) => {
    release(event);
    drag = undefined;
  });
  canvas.addEventListener("pointerup", (event) => {
    const wasDrag = drag?.moved || pinch !== undefined;
    release(event);
    const hadDrag = drag !== undefined;
    drag = undefined;
    if (wasDrag || !hadDrag) return;
    host.click(event.offsetX, event.offsetY);
  });
  canvas.addEventListener("dblclick", (event) => host.doubleClick(event.offsetX, event.offsetY));
  canvas.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      if (event.ctrlKey || event.metaKey || !event.shiftKey) {
        // smooth: proportional to the wheel distance (trackpads send many small deltas, mice a few large ones)
        const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
        camera.zoomAt(Math.exp(-delta * (event.ctrlKey ? 0.01 : 0.0015)), event.offsetX, event.offsetY);
      } else {
        camera.x -= event.deltaY;
      }
      host.requestDraw();
    },
    { passive: false },
  );
  canvas.addEventListener("keydown", (event) => {
    if (event.key === "+" || event.key === "=") host.zoomAnimated(1.5);
    else if (event.key === "-") host.zoomAnimated(1 / 1.5);
    else if (event.key === "0") host.fit();
    else if (event.key === "Home") host.home();
    else if (event.key.startsWith("Arrow")) {
      const step = 60;
      if (event.key === "ArrowLeft") camera.x += step;
      if (event.key === "ArrowRight") camera.x -= step;
      if (event.key === "ArrowUp") camera.y += step;
      if (event.key === "ArrowDown") camera.y -= step;
      host.requestDraw();
    } else return;
    event.preventDefault();
  });
}
