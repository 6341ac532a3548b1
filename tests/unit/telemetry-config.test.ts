import test from 'ava';
import { loadConfig } from '../../bootstrap/config.ts';

const telemetryOf = (env: Record<string, string>) => {
  const result = loadConfig(env, { persistLocalSecret: false });
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join('; ')}`);
  return result.config.telemetry;
};

test('traces are off without an OTLP endpoint, whatever else OTEL_* says', (t) => {
  t.deepEqual(telemetryOf({}), { traces: null });
  t.deepEqual(telemetryOf({ OTEL_SERVICE_NAME: 'named', OTEL_TRACES_SAMPLER: 'always_on' }), { traces: null });
});

test('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces; the traces endpoint is taken as is and wins', (t) => {
  t.is(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).traces?.url, 'http://collector:4318/v1/traces');
  t.is(telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).traces?.url, 'http://collector:4318/v1/traces');
  t.is(
    telemetryOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp' }).traces?.url,
    'https://traces.example/otlp',
  );
});

test('the service name follows the role unless OTEL_SERVICE_NAME says otherwise', (t) => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  t.is(telemetryOf({ ...endpoint, ROLES: 'api' }).traces?.serviceName, 'media-gen-api');
  t.is(telemetryOf({ ...endpoint, ROLES: 'worker' }).traces?.serviceName, 'media-gen-worker');
  t.is(telemetryOf(endpoint).traces?.serviceName, 'media-gen-api');
  t.is(telemetryOf({ ...endpoint, ROLES: 'worker', OTEL_SERVICE_NAME: 'gpu-box-3' }).traces?.serviceName, 'gpu-box-3');
});

test('an endpoint that is not an http(s) URL is a start-up problem naming the variable', (t) => {
  const result = loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }, { persistLocalSecret: false });
  t.false(result.ok);
  if (!result.ok) t.true(result.problems.some((problem) => problem.startsWith('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ')), result.problems.join('; '));
});
