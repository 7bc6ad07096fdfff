// A small canvas chart of trade prices: a step line (a price holds until the next trade) with the
// range, the last price and the time span labelled. Own code: a charting library would outweigh the
// rest of the page.
import { cssVar, prepareCanvas } from './canvas.ts';

export interface ChartPoint {
  readonly at: number;
  readonly price: number;
}

const PAD = { left: 8, right: 64, top: 10, bottom: 18 };


export function drawPriceChart(canvas: HTMLCanvasElement, points: readonly ChartPoint[]): void {
  const surface = prepareCanvas(canvas);
  if (surface === null) return;
  const { ctx, width, height } = surface;
  const muted = cssVar(canvas, '--muted', '#8a94a6');
  const line = cssVar(canvas, '--accent', '#4da3ff');
  const grid = cssVar(canvas, '--grid', '#263041');
  ctx.font = '11px ui-monospace, monospace';
  ctx.textBaseline = 'middle';

  if (points.length === 0) {
    ctx.fillStyle = muted;
    ctx.textAlign = 'center';
    ctx.fillText('no trades yet', width / 2, height / 2);
    return;
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of points) {
    lo = Math.min(lo, p.price);
    hi = Math.max(hi, p.price);
  }
  if (hi === lo) {
    hi += 1;
    lo -= 1;
  }
  const first = points[0]?.at ?? 0;
  const now = Math.max(Date.now(), points[points.length - 1]?.at ?? 0);
  const span = Math.max(now - first, 1);
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const x = (t: number): number => PAD.left + ((t - first) / span) * plotW;
  const y = (p: number): number => PAD.top + (1 - (p - lo) / (hi - lo)) * plotH;

  ctx.strokeStyle = grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = muted;
  ctx.textAlign = 'left';
  for (const p of [hi, (hi + lo) / 2, lo]) {
    const py = Math.round(y(p)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(PAD.left, py);
    ctx.lineTo(PAD.left + plotW, py);
    ctx.stroke();
    ctx.fillText(String(Math.round(p)), PAD.left + plotW + 6, py);
  }
  ctx.textAlign = 'left';
  ctx.fillText(`${Math.round(span / 1000)} s`, PAD.left, height - 8);

  ctx.strokeStyle = line;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  let prevY = y(points[0]?.price ?? lo);
  ctx.moveTo(x(first), prevY);
  for (const p of points) {
    const px = x(p.at);
    ctx.lineTo(px, prevY);
    prevY = y(p.price);
    ctx.lineTo(px, prevY);
  }
  ctx.lineTo(x(now), prevY);
  ctx.stroke();

  const last = points[points.length - 1];
  if (last !== undefined) {
    ctx.fillStyle = line;
    ctx.fillRect(PAD.left + plotW + 2, prevY - 8, PAD.right - 4, 16);
    ctx.fillStyle = cssVar(canvas, '--bg', '#0e131b');
    ctx.fillText(String(last.price), PAD.left + plotW + 6, prevY);
  }
}
