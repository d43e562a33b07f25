// prom-client's index loads everything it has (the cluster aggregator, the Pushgateway's HTTP
// clients, summaries, default metrics): about 130 ms of cold start. These four files are all the
// server uses (about 4 ms); their types are the package's own.
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export default Registry;
}
declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export default Counter;
}
declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export default Gauge;
}
declare module 'prom-client/lib/histogram.js' {
  import { Histogram } from 'prom-client';
  export default Histogram;
}
