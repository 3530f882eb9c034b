/** Modules the tests use that ship no types of their own. */
declare module 'parse-prometheus-text-format' {
  /** One sample (counter, gauge, untyped) or one histogram/summary series, as prom2json writes them. */
  export interface PrometheusSample {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface PrometheusFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PrometheusSample[];
  }
  /** Parses Prometheus's text exposition format; throws on malformed text. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
