// Silences (contract 4.6, reference §6), written once for both transports: create at each manager
// (the embedded one, Alertmanager, Grafana) and replace, the business rules of a silence's window,
// managers that refuse or cannot be reached, a manager the gateway lacks, read, list, update and
// delete. The managers are local HTTP servers answering like Alertmanager's and Grafana's APIs
// (test/platform/alertmanager.test.ts runs the real Alertmanager when it is installed). The
// scenarios of one transport share a database and the fixtures: every scenario uses alerts of its own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UUID_PATTERN } from '../support/api.js';
import { calls, GRAFANA_TOKEN, hoursFromNow, silenceBody, silencesOf, silencesSentFor, type AlertingGateway, type SilenceBody } from '../support/alerting.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** A silence as the REST contract spells it (the original's field names, managers and states in lower case). */
export interface Silence {
  id: string;
  alert_id: string;
  manager: string;
  manager_silence_id: string | null;
  start_time: string;
  end_time: string;
  state: string;
  comment: string;
  created_by: string;
  updated_by: string;
  createdAt: string;
  updatedAt: string;
}

export interface SilencesDriver {
  /** Silences an alert at the gateway `on` (this run's when left out). */
  createSilence(silence: SilenceBody, on?: TestGateway): Promise<Outcome<{ id: string }>>;
  readSilence(id: string): Promise<Outcome<Silence>>;
  /** Every silence of the filter (the first `limit` of them, given as query-string text), newest first, and how many there are. */
  listSilences(filter?: { alertId?: string; manager?: string; limit?: string }): Promise<Outcome<{ transformedSilences: Silence[]; count: number }>>;
  updateSilence(id: string, changes: { startDate?: string; endDate?: string }): Promise<Outcome<{ id: string }>>;
  deleteSilence(id: string): Promise<Outcome<{ id: string }>>;
}

export function silenceScenarios(ctx: SuiteContext<SilencesDriver, AlertingGateway>): void {
  const createOk = async (silence: SilenceBody) => expectOk(await ctx.driver.createSilence(silence)).id;
  const readOk = async (id: string) => expectOk(await ctx.driver.readSilence(id));
  const stored = (alertId: string) => silencesOf(ctx.gw, alertId);
  const storedEnd = async (alertId: string) => (await stored(alertId))[0].end_time.toISOString();

  describe('create', () => {
    it('silences an alert at the embedded manager, answers {id}, stores the silence and reads it back active', async () => {
      const body = silenceBody();
      const created = expectOk(await ctx.driver.createSilence(body));
      expect(created).toEqual({ id: expect.stringMatching(UUID_PATTERN) });
      const [row] = await stored(body.alertId);
      expect(row).toMatchObject({ id: created.id, manager: 'embedded', manager_silence_id: null, created_by: 'SYSTEM', comment: `Silence for alert: ${body.alertId}` });
      expect(row.start_time.toISOString()).toBe(body.startDate);
      expect(row.end_time.toISOString()).toBe(body.endDate);
      expect(await readOk(created.id)).toMatchObject({
        alert_id: body.alertId,
        manager: 'embedded',
        manager_silence_id: null,
        start_time: body.startDate,
        end_time: body.endDate,
        state: 'active',
        created_by: 'SYSTEM',
      });
    });

    it('creates the silence at Alertmanager (matcher alertId, window, creator, comment) and keeps its silence id', async () => {
      const body = silenceBody({ manager: 'alertmanager', comment: 'maintenance window' });
      const id = await createOk(body);
      const [sent] = silencesSentFor(ctx.gw.fx.alertmanager, body.alertId);
      expect(sent!.body).toEqual({
        matchers: [{ name: 'alertId', value: body.alertId, isRegex: false, isEqual: true }],
        startsAt: body.startDate,
        endsAt: body.endDate,
        createdBy: 'SYSTEM',
        comment: 'maintenance window',
      });
      const [row] = await stored(body.alertId);
      expect(row).toMatchObject({ id, manager: 'alertmanager', manager_silence_id: expect.stringMatching(UUID_PATTERN) });
      expect((await readOk(id)).manager_silence_id).toBe(row.manager_silence_id);
    });

    it('creates the silence in Grafana with its token', async () => {
      const body = silenceBody({ manager: 'grafana' });
      await createOk(body);
      const [sent] = calls(ctx.gw.fx.grafana, 'POST', '/api/alertmanager/grafana/api/v2/silences').filter((request) => request.body.matchers[0].value === body.alertId);
      expect(sent!.headers.authorization).toBe(`Bearer ${GRAFANA_TOKEN}`);
      expect((await stored(body.alertId))[0].manager).toBe('grafana');
    });

    it('replaces the silence of an alert silenced again: one record, and the manager is asked to replace its silence', async () => {
      const first = silenceBody({ manager: 'alertmanager' });
      await createOk(first);
      const [before] = await stored(first.alertId);
      const secondId = await createOk({ ...first, endDate: hoursFromNow(5) });
      expect((await stored(first.alertId)).map((row) => row.id)).toEqual([secondId]);
      const replacing = silencesSentFor(ctx.gw.fx.alertmanager, first.alertId);
      expect(replacing).toHaveLength(2);
      expect(replacing[1]!.body.id).toBe(before.manager_silence_id);
    });

    it('ends the old silence at its manager when the alert is silenced again at another one', async () => {
      const first = silenceBody({ manager: 'alertmanager' });
      await createOk(first);
      const [before] = await stored(first.alertId);
      await createOk({ ...first, manager: 'grafana' });
      expect(calls(ctx.gw.fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
      expect((await stored(first.alertId)).map((row) => row.manager)).toEqual(['grafana']);
    });

    it.each([
      ['endDate is before startDate', { startDate: hoursFromNow(3), endDate: hoursFromNow(1) }, /endDate .* must be after startDate/],
      ['endDate is in the past', { startDate: hoursFromNow(-5), endDate: hoursFromNow(-1) }, /endDate .* is in the past/],
      ['the silence lasts more than 366 days', { endDate: hoursFromNow(24 * 400) }, /at most 366 days/],
      ['alertId is not a UUID', { alertId: 'alert-1' }, /^alertId must be a UUID \(got "alert-1"\)$/],
      // The value is quoted as sent: GraphQL's driver sends manager names in capitals.
      ['the manager is not one the gateway knows', { manager: 'prometheus' }, /^manager must be one of embedded, alertmanager, grafana \(got "(prometheus|PROMETHEUS)"\)$/],
    ])('refuses a silence where %s with SILENCE_INVALID_INPUT naming the problem: the manager is not called, nothing is stored', async (_, overrides, message) => {
      const body = silenceBody({ manager: 'alertmanager', ...overrides });
      const requestsBefore = ctx.gw.fx.alertmanager.requests.length;
      expectFailure(await ctx.driver.createSilence(body), 'SILENCE_INVALID_INPUT', message);
      expect(await stored(body.alertId)).toEqual([]);
      expect(ctx.gw.fx.alertmanager.requests.length).toBe(requestsBefore);
    });

    it("fails with ALERT_MANAGER_FAILED and the manager's answer when it refuses, and stores nothing", async () => {
      ctx.gw.fx.alertmanager.respond = () => ({ status: 400, body: "Failed to create silence: end time can't be in the past" });
      const body = silenceBody({ manager: 'alertmanager' });
      expectFailure(
        await ctx.driver.createSilence(body),
        'ALERT_MANAGER_FAILED',
        /Alertmanager at http:\/\/127\.0\.0\.1:\d+ answered HTTP 400: Failed to create silence: end time can't be in the past/,
      );
      expect(await stored(body.alertId)).toEqual([]);
    });

    it('fails with ALERT_MANAGER_FAILED when the manager cannot be reached, and stores nothing', async () => {
      ctx.gw.fx.grafana.respond = () => 'hang-up';
      const body = silenceBody({ manager: 'grafana' });
      expectFailure(await ctx.driver.createSilence(body), 'ALERT_MANAGER_FAILED', /Grafana at .* could not be reached/);
      expect(await stored(body.alertId)).toEqual([]);
    });

    it('keeps the previous silence when the manager refuses its replacement', async () => {
      const first = silenceBody({ manager: 'alertmanager' });
      const firstId = await createOk(first);
      ctx.gw.fx.alertmanager.respond = () => ({ status: 500, body: 'storage failure' });
      expectFailure(await ctx.driver.createSilence({ ...first, endDate: hoursFromNow(9) }), 'ALERT_MANAGER_FAILED', /storage failure/);
      expect((await stored(first.alertId)).map((row) => [row.id, row.end_time.toISOString()])).toEqual([[firstId, first.endDate]]);
    });

    describe('on a gateway without Alertmanager or Grafana', () => {
      let bare: TestGateway;
      beforeAll(async () => {
        bare = await startTestGateway({ DATA_DIR: ctx.gw.fx.dataDir });
      });
      afterAll(async () => {
        await bare?.stop();
      });

      it('refuses a manager that is not configured with SILENCE_INVALID_INPUT naming the setting, and stores nothing', async () => {
        expectFailure(
          await ctx.driver.createSilence(silenceBody({ manager: 'alertmanager' }), bare),
          'SILENCE_INVALID_INPUT',
          /manager "alertmanager" is not configured on this gateway \(configured: embedded\); set ALERTMANAGER_URL/,
        );
        expect((await bare.sql('SELECT count(*)::int AS n FROM alert_silences')).rows[0]!.n).toBe(0);
      });

      it('serves the name "grafana" (what legacy clients send) with the embedded manager there', async () => {
        const body = silenceBody({ manager: 'grafana' });
        expectOk(await ctx.driver.createSilence(body, bare));
        expect((await bare.sql('SELECT manager FROM alert_silences WHERE alert_id::text = $1', [body.alertId])).rows).toEqual([{ manager: 'embedded' }]);
      });
    });
  });

  describe('read and list', () => {
    it("reads a silence with the original's field names, its manager and its state", async () => {
      const body = silenceBody({ manager: 'alertmanager', startDate: hoursFromNow(1), endDate: hoursFromNow(2) });
      const id = await createOk(body);
      const silence = await readOk(id);
      expect(silence).toMatchObject({ id, alert_id: body.alertId, manager: 'alertmanager', start_time: body.startDate, end_time: body.endDate, state: 'pending', created_by: 'SYSTEM' });
      expect(silence.manager_silence_id).toMatch(UUID_PATTERN);
      expect(Object.keys(silence).sort()).toEqual([
        'alert_id',
        'comment',
        'createdAt',
        'created_by',
        'end_time',
        'id',
        'manager',
        'manager_silence_id',
        'start_time',
        'state',
        'updatedAt',
        'updated_by',
      ]);
    });

    it('fails with SILENCE_NOT_FOUND for an unknown id, UUID or not', async () => {
      expectFailure(await ctx.driver.readSilence(randomUUID()), 'SILENCE_NOT_FOUND', /does not exist/);
      expectFailure(await ctx.driver.readSilence('not-a-uuid'), 'SILENCE_NOT_FOUND', /not-a-uuid does not exist/);
    });

    it('refuses a silence id over 64 characters with SILENCE_INVALID_INPUT, naming its length', async () => {
      expectFailure(await ctx.driver.readSilence('x'.repeat(65)), 'SILENCE_INVALID_INPUT', /^the silence id must be at most 64 characters \(got 65\)$/);
    });

    it("refuses a negative page size with the list contract's message", async () => {
      expectFailure(await ctx.driver.listSilences({ limit: '-1' }), 'SILENCE_INVALID_INPUT', /^the page size must be an integer from 0 to \d+ \(got -1\)$/);
    });

    it('refuses an alertId filter that is not a UUID with SILENCE_INVALID_INPUT', async () => {
      expectFailure(await ctx.driver.listSilences({ alertId: 'x' }), 'SILENCE_INVALID_INPUT', /^the alertId filter must be a UUID$/);
    });

    it('lists silences newest first with a count, filtered by alert and by manager', async () => {
      const alertId = randomUUID();
      const id = await createOk(silenceBody({ alertId, manager: 'grafana' }));
      expect(expectOk(await ctx.driver.listSilences({ alertId }))).toEqual({ transformedSilences: [expect.objectContaining({ id, alert_id: alertId, state: 'active' })], count: 1 });

      const all = expectOk(await ctx.driver.listSilences());
      const created = all.transformedSilences.map((silence) => Date.parse(silence.createdAt));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect(all.count).toBe((await ctx.gw.sql('SELECT id FROM alert_silences')).rows.length);

      const grafanaOnly = expectOk(await ctx.driver.listSilences({ manager: 'grafana' })).transformedSilences;
      expect(grafanaOnly.map((silence) => silence.id)).toContain(id);
      expect(grafanaOnly.every((silence) => silence.manager === 'grafana')).toBe(true);
    });
  });

  describe('update', () => {
    it('moves the end at the manager first (replacing its silence), then in the record', async () => {
      const body = silenceBody({ manager: 'alertmanager' });
      const id = await createOk(body);
      const [before] = await stored(body.alertId);
      const endDate = hoursFromNow(12);
      expect(expectOk(await ctx.driver.updateSilence(id, { endDate }))).toEqual({ id });
      const sent = silencesSentFor(ctx.gw.fx.alertmanager, body.alertId).at(-1)!;
      expect(sent.body).toMatchObject({ id: before.manager_silence_id, startsAt: body.startDate, endsAt: endDate });
      expect(await storedEnd(body.alertId)).toBe(endDate);
      expect((await readOk(id)).end_time).toBe(endDate);
    });

    it('moves the start as well as the end', async () => {
      const id = await createOk(silenceBody());
      const startDate = hoursFromNow(1);
      expect(expectOk(await ctx.driver.updateSilence(id, { startDate }))).toEqual({ id });
      expect(await readOk(id)).toMatchObject({ start_time: startDate, state: 'pending' });
    });

    it('refuses an update with nothing to change with SILENCE_INVALID_INPUT, changing nothing', async () => {
      const body = silenceBody();
      const id = await createOk(body);
      expectFailure(await ctx.driver.updateSilence(id, {}), 'SILENCE_INVALID_INPUT', /^nothing to update: give startDate, endDate or both$/);
      expect(await storedEnd(body.alertId)).toBe(body.endDate);
    });

    it('refuses an end before the start with SILENCE_INVALID_INPUT, changing nothing', async () => {
      const body = silenceBody();
      const id = await createOk(body);
      expectFailure(await ctx.driver.updateSilence(id, { endDate: hoursFromNow(-1) }), 'SILENCE_INVALID_INPUT', /must be after startDate/);
      expect(await storedEnd(body.alertId)).toBe(body.endDate);
    });

    it('leaves the record as it was when the manager refuses the change', async () => {
      const body = silenceBody({ manager: 'grafana' });
      const id = await createOk(body);
      ctx.gw.fx.grafana.respond = () => ({ status: 500, body: { message: 'alertmanager unavailable' } });
      expectFailure(await ctx.driver.updateSilence(id, { endDate: hoursFromNow(30) }), 'ALERT_MANAGER_FAILED', /alertmanager unavailable/);
      expect(await storedEnd(body.alertId)).toBe(body.endDate);
    });

    it('fails with SILENCE_NOT_FOUND for an unknown silence', async () => {
      expectFailure(await ctx.driver.updateSilence(randomUUID(), { endDate: hoursFromNow(3) }), 'SILENCE_NOT_FOUND', /does not exist/);
    });
  });

  describe('delete', () => {
    it('ends the silence at its manager, then deletes the record', async () => {
      const body = silenceBody({ manager: 'alertmanager' });
      const id = await createOk(body);
      const [before] = await stored(body.alertId);
      expect(expectOk(await ctx.driver.deleteSilence(id))).toEqual({ id });
      expect(calls(ctx.gw.fx.alertmanager, 'DELETE', `/api/v2/silence/${before.manager_silence_id}`)).toHaveLength(1);
      expect(await stored(body.alertId)).toEqual([]);
    });

    it('keeps the record when the manager cannot end the silence', async () => {
      const body = silenceBody({ manager: 'alertmanager' });
      const id = await createOk(body);
      ctx.gw.fx.alertmanager.respond = () => ({ status: 503, body: 'shutting down' });
      expectFailure(await ctx.driver.deleteSilence(id), 'ALERT_MANAGER_FAILED', /answered HTTP 503: shutting down/);
      expect(await stored(body.alertId)).toHaveLength(1);
    });

    it('fails with SILENCE_NOT_FOUND for an unknown silence', async () => {
      expectFailure(await ctx.driver.deleteSilence(randomUUID()), 'SILENCE_NOT_FOUND', /does not exist/);
    });
  });
}
