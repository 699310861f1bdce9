// The official Anthropic Node SDK against `noveltygrid serve-sim`: if these pass, a program written for
// api.anthropic.com talks to the simulator unchanged (messages.create with a cached system prompt, the
// same text as the OpenAI route gives, prompt-cache usage, the error classes the SDK maps from 401 /
// 404 / 529).
//
// Run: NOVELTYGRID_BIN=/path/to/noveltygrid node --test test.mjs   (ctest: anthropic_node_sdk_integration)
// Every server this file starts is SIGTERMed in `after`, whether the tests passed or not, and killed
// outright if the test process exits some other way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { startServeSim as startServeSimProcess } from '../serve_sim.mjs';

const BIN = process.env.NOVELTYGRID_BIN;
const API_KEY = 'sk-ant-noveltygrid-sdk-test';
const startServeSim = (extraArgs = []) => startServeSimProcess(BIN, API_KEY, extraArgs);

function client(port, apiKey = API_KEY) {
  return new Anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey, maxRetries: 0, timeout: 30_000 });
}

const SYSTEM = 'You are a careful assistant who answers briefly.';
const USER = 'Name one unusual use for a brick.';

const MESSAGE = {
  model: 'sim:explorer',
  max_tokens: 200,
  temperature: 0.7,
  system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: USER }],
};

// The same conversation through the OpenAI route, with plain fetch.
async function openAiText(port) {
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({
      model: MESSAGE.model,
      max_tokens: MESSAGE.max_tokens,
      temperature: MESSAGE.temperature,
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: USER }],
    }),
  });
  assert.equal(response.status, 200);
  const body = await response.json();
  return { text: body.choices[0].message.content, promptTokens: body.usage.prompt_tokens };
}

describe('anthropic-sdk-typescript against serve-sim', { timeout: 120_000 }, () => {
  assert.ok(BIN, 'set NOVELTYGRID_BIN to the noveltygrid binary');
  const servers = [];
  let port;
  let faultyPort;

  before(async () => {
    const plain = startServeSim();
    const faulty = startServeSim(['--fault-rate', '1.0', '--faults', '529']);
    servers.push(plain, faulty);
    [port, faultyPort] = await Promise.all([plain.port, faulty.port]);
  });

  after(async () => {
    const exits = await Promise.all(servers.map((s) => s.stop()));
    exits.forEach((exit, i) => assert.equal(exit.code, 0, `serve-sim exited with ${JSON.stringify(exit)}:\n${servers[i].output()}`));
  });

  it('messages.create answers the OpenAI route\'s text, writing the cached system prompt then reading it', async () => {
    const anthropic = client(port);
    const first = await anthropic.messages.create(MESSAGE);
    assert.equal(first.type, 'message');
    assert.equal(first.role, 'assistant');
    assert.equal(first.model, 'sim:explorer');
    assert.equal(first.stop_reason, 'end_turn');
    assert.equal(first.content.length, 1);
    assert.equal(first.content[0].type, 'text');
    const openai = await openAiText(port);
    assert.equal(first.content[0].text, openai.text);

    assert.ok(first.usage.cache_creation_input_tokens > 0, JSON.stringify(first.usage));
    assert.equal(first.usage.cache_read_input_tokens, 0);
    assert.ok(first.usage.input_tokens > 0);
    assert.ok(first.usage.output_tokens > 0);
    assert.equal(first.usage.input_tokens + first.usage.cache_creation_input_tokens, openai.promptTokens);

    const second = await anthropic.messages.create(MESSAGE);
    assert.equal(second.content[0].text, first.content[0].text);
    assert.equal(second.id, first.id);
    assert.equal(second.usage.cache_creation_input_tokens, 0);
    assert.equal(second.usage.cache_read_input_tokens, first.usage.cache_creation_input_tokens);
    assert.equal(second.usage.input_tokens, first.usage.input_tokens);

    const stats = await (await fetch(`http://127.0.0.1:${port}/stats`)).json();
    assert.ok(stats.messages >= 2, JSON.stringify(stats));
  });

  it('an unknown model raises NotFoundError (404), an APIError', async () => {
    await assert.rejects(client(port).messages.create({ ...MESSAGE, model: 'claude-no-such-model' }), (err) => {
      assert.ok(err instanceof Anthropic.NotFoundError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.ok(err instanceof Anthropic.APIError);
      assert.equal(err.status, 404);
      assert.equal(err.error?.error?.type, 'not_found_error');
      return true;
    });
  });

  it('a wrong API key raises AuthenticationError (401)', async () => {
    await assert.rejects(client(port, 'sk-ant-wrong').messages.create(MESSAGE), (err) => {
      assert.ok(err instanceof Anthropic.AuthenticationError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.status, 401);
      assert.ok(!String(err.message).includes(API_KEY), 'the key is echoed');
      return true;
    });
  });

  it('an injected 529 raises an overloaded_error APIError after exactly one request (maxRetries: 0)', async () => {
    await assert.rejects(client(faultyPort).messages.create(MESSAGE), (err) => {
      assert.ok(err instanceof Anthropic.InternalServerError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.status, 529);
      assert.equal(err.error?.error?.type, 'overloaded_error');
      return true;
    });
    const stats = await (await fetch(`http://127.0.0.1:${faultyPort}/stats`)).json();
    assert.equal(stats.messages, 1);
    assert.equal(stats.faults_injected, 1);
  });
});
