/**
 * Reading a `/debug/metrics` answer in tests with a Prometheus text parser (prom2json's shape).
 * The parser folds every series of a labelled histogram into one, labels lost, so the samples are
 * read from a second parse without the `# TYPE` lines, where each line keeps its own name
 * (`…_count`, `…_sum`, `…_bucket`) and labels; the first parse gives the families and their types.
 */
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';

export class Scrape {
  readonly #families: ReadonlyMap<string, PrometheusFamily>;
  readonly #samples = new Map<string, PrometheusSample[]>();

  constructor(text: string) {
    this.#families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    const untyped = text
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .join('\n');
    for (const family of parsePrometheusTextFormat(untyped)) {
      this.#samples.set(family.name, [...(this.#samples.get(family.name) ?? []), ...family.metrics]);
    }
  }

  /** A family by its name (a histogram's without `_count`/`_sum`/`_bucket`): its type and help. */
  family(name: string): PrometheusFamily {
    const family = this.#families.get(name);
    if (family === undefined) throw new Error(`no metric ${name} in the scrape`);
    return family;
  }

  /** The samples of one name (a histogram's: `<name>_count` …) whose labels include `labels`. */
  samples(name: string, labels: Readonly<Record<string, string>> = {}): PrometheusSample[] {
    return (this.#samples.get(name) ?? []).filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
    );
  }

  /** The value of the one sample of `name` with these labels; undefined when there is none. */
  sample(name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
    const [first, ...more] = this.samples(name, labels);
    if (more.length > 0) throw new Error(`${name} ${JSON.stringify(labels)} matches ${more.length + 1} samples`);
    return first?.value === undefined ? undefined : Number(first.value);
  }

  /** `sample`, throwing when it is missing. */
  value(name: string, labels: Readonly<Record<string, string>> = {}): number {
    const value = this.sample(name, labels);
    if (value === undefined) throw new Error(`no sample of ${name} with labels ${JSON.stringify(labels)}`);
    return value;
  }

  /** The sum of every sample of `name` with these labels (0 for none): a count across the labels not given. */
  total(name: string, labels: Readonly<Record<string, string>> = {}): number {
    return this.samples(name, labels).reduce((sum, sample) => sum + Number(sample.value), 0);
  }
}

/** GETs a metrics URL and parses the answer. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return new Scrape(await response.text());
}
