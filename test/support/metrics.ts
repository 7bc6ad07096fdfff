// Reading /metrics in tests: the Prometheus text exposition parsed by a parser library
// (parse-prometheus-text-format), then looked up by family name and labels.
import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

export interface Families {
  /** Metric families as the exposition declares them (name, type, help). */
  readonly families: ReadonlyMap<string, PromFamily>;
  /** Every series by its own name (histograms as name_bucket, name_sum, name_count), labels intact. */
  readonly series: ReadonlyMap<string, PromFamily>;
  has(name: string): boolean;
  get(name: string): PromFamily | undefined;
  keys(): IterableIterator<string>;
}

export async function scrape(url: string, adminToken?: string): Promise<Families> {
  const res = await fetch(url, adminToken === undefined ? {} : { headers: { authorization: `Bearer ${adminToken}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`GET ${url}: content-type ${type}`);
  return parse(await res.text());
}

function byName(parsed: readonly PromFamily[], merge: boolean): Map<string, PromFamily> {
  const out = new Map<string, PromFamily>();
  for (const family of parsed) {
    const seen = out.get(family.name);
    if (seen !== undefined && !merge) throw new Error(`metric family ${family.name} appears twice`);
    out.set(family.name, seen === undefined ? family : { ...seen, metrics: [...seen.metrics, ...family.metrics] });
  }
  return out;
}

/**
 * The library folds a histogram's samples into one bucket map and drops the labels of its _sum and
 * _count lines, so labelled histograms are read a second time without their TYPE comment: then each of
 * name_bucket, name_sum and name_count is a series of its own (their lines interleave per label set), which is also how Prometheus stores them.
 */
export function parse(text: string): Families {
  const families = byName(parsePrometheusTextFormat(text), false);
  const histogramTypes = new Set([...families.values()].filter((f) => f.type === 'HISTOGRAM').map((f) => `# TYPE ${f.name} histogram`));
  const series = byName(parsePrometheusTextFormat(text.split('\n').filter((line) => !histogramTypes.has(line)).join('\n')), true);
  return { families, series, has: (n) => families.has(n), get: (n) => families.get(n), keys: () => families.keys() };
}

function matches(sample: PromSample, labels: Readonly<Record<string, string>>): boolean {
  return Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v);
}

function family(m: Families, name: string): PromFamily {
  const f = m.families.get(name) ?? m.series.get(name);
  if (f === undefined) throw new Error(`no metric family ${name} in /metrics`);
  return f;
}

/** The value of a counter or gauge sample with these labels (0 when the family has no such sample). */
export function value(m: Families, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const f = family(m, name);
  if (f.type === 'HISTOGRAM') throw new Error(`${name} is a histogram: use histogramCount`);
  const samples = f.metrics.filter((s) => matches(s, labels));
  return samples.reduce((sum, s) => sum + Number(s.value), 0);
}

/** The observation count of a histogram with these labels. */
export function histogramCount(m: Families, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const f = family(m, name);
  if (f.type !== 'HISTOGRAM') throw new Error(`${name} is a ${f.type}, not a histogram`);
  const counts = m.series.get(`${name}_count`);
  if (counts === undefined) return 0;
  return counts.metrics.filter((s) => matches(s, labels)).reduce((sum, s) => sum + Number(s.value), 0);
}

/** The label sets of a counter or gauge, or of a histogram's series. */
export function labelSets(m: Families, name: string): Readonly<Record<string, string>>[] {
  const f = family(m, name);
  const samples = f.type === 'HISTOGRAM' ? (m.series.get(`${name}_count`)?.metrics ?? []) : f.metrics;
  return samples.map((s) => s.labels ?? {});
}
