// The Grafana dashboard (deploy/grafana/gateway-dashboard.json) and its provisioning files, read as
// Grafana reads them (no Grafana runs on the project's machines; test/http/prometheus-api.test.ts
// evaluates every expression against a gateway): every panel and variable is bound to the data source
// the import asks for (__inputs DS_GATEWAY), which is also the dashboard's data source variable, so a
// provisioned copy binds to the provisioned data source; a stat over a ratio or a sum shows 0 where
// nothing happened, not "No data"; the ingestion panels do not narrow by gateway (their series are the
// database's own, without an instance label).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

const GRAFANA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/grafana');

interface Reference {
  type?: string;
  uid?: string;
}
interface Target {
  refId: string;
  expr: string;
  datasource?: Reference;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: Reference;
  targets: Target[];
}
interface Variable {
  name: string;
  type: string;
  query?: unknown;
  datasource?: Reference;
  current?: { value?: string };
}
interface Dashboard {
  uid: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  templating: { list: Variable[] };
  panels: Panel[];
}

const dashboard = JSON.parse(readFileSync(path.join(GRAFANA, 'gateway-dashboard.json'), 'utf8')) as Dashboard;
const SHARED_SERIES = ['gateway_ingestion_events_total', 'gateway_ingestion_requests_total'];

describe('the Grafana dashboard', () => {
  it('binds every panel, query and query variable to the data source input, which is also its data source variable', () => {
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_GATEWAY', type: 'datasource', pluginId: 'prometheus' })]);
    const variable = dashboard.templating.list.find((candidate) => candidate.name === 'DS_GATEWAY');
    expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const bound = { type: 'prometheus', uid: '${DS_GATEWAY}' };
    for (const panel of dashboard.panels) {
      expect([panel.title, panel.datasource]).toEqual([panel.title, bound]);
      for (const target of panel.targets) expect([panel.title, target.refId, target.datasource]).toEqual([panel.title, target.refId, bound]);
    }
    for (const query of dashboard.templating.list.filter((candidate) => candidate.type === 'query')) expect([query.name, query.datasource]).toEqual([query.name, bound]);
    // No other data source is named anywhere (a leftover ${datasource} would bind to nothing).
    const references = JSON.stringify(dashboard).match(/\$\{[A-Za-z_]+\}/g) ?? [];
    expect(new Set(references)).toEqual(new Set(['${DS_GATEWAY}']));
  });

  it('shows 0 rather than No data in every stat, the 5xx share included', () => {
    const stats = dashboard.panels.filter((panel) => panel.type === 'stat');
    expect(stats.map((panel) => panel.title)).toEqual(expect.arrayContaining(['5xx share', 'Events failed (range)', 'Gateways up']));
    for (const panel of stats) for (const target of panel.targets) expect([panel.title, target.expr]).toEqual([panel.title, expect.stringMatching(/\) or vector\(0\)$/)]);
  });

  it("does not narrow the database's shared ingestion series by gateway, and narrows every gateway's own series", () => {
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        const shared = SHARED_SERIES.some((name) => target.expr.includes(name));
        expect([panel.title, target.expr.includes('instance=~"$instance"')]).toEqual([panel.title, !shared]);
      }
    }
  });

  it('has an up series per gateway', () => {
    const up = dashboard.panels.filter((panel) => panel.targets.some((target) => /\bup\{job="gateway", instance=~"\$instance"\}/.test(target.expr)));
    expect(up.map((panel) => panel.title).sort()).toEqual(['Gateways up', 'Up per gateway']);
  });
});

describe("Grafana's provisioning files (deploy/grafana/provisioning)", () => {
  const datasources = parse(readFileSync(path.join(GRAFANA, 'provisioning/datasources/gateway.yaml'), 'utf8')) as {
    apiVersion: number;
    datasources: { name: string; uid: string; type: string; url: string; isDefault: boolean; jsonData: Record<string, unknown>; secureJsonData: Record<string, string> }[];
  };
  const dashboards = parse(readFileSync(path.join(GRAFANA, 'provisioning/dashboards/gateway.yaml'), 'utf8')) as {
    apiVersion: number;
    providers: { name: string; type: string; options: { path: string } }[];
  };

  it("provision the gateway's Prometheus API as the data source the dashboard starts on, with its API key header", () => {
    expect(datasources.apiVersion).toBe(1);
    const [source] = datasources.datasources;
    expect(source).toMatchObject({
      type: 'prometheus',
      url: '${GATEWAY_URL}/prometheus',
      isDefault: true,
      jsonData: { httpHeaderName1: 'x-api-key' },
      secureJsonData: { httpHeaderValue1: '${GATEWAY_API_KEY}' },
    });
    const variable = dashboard.templating.list.find((candidate) => candidate.name === 'DS_GATEWAY');
    expect(variable?.current?.value).toBe(source!.uid);
  });

  it('provision the dashboard from a folder of files', () => {
    expect(dashboards.apiVersion).toBe(1);
    expect(dashboards.providers).toEqual([expect.objectContaining({ type: 'file', options: expect.objectContaining({ path: expect.stringMatching(/^\//) }) })]);
  });
});
