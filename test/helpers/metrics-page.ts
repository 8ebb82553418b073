/** The value of one series on a Prometheus metrics page (`name{labels} value`), or undefined. */
export function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
