// The official OpenAI Node SDK against `noveltygrid serve-sim`: if these pass, a program written for
// api.openai.com talks to the simulator unchanged (chat with n, embeddings in both encodings, the
// error classes the SDK maps from 401 / 404 / 429).
//
// Run: NOVELTYGRID_BIN=/path/to/noveltygrid node --test test.mjs   (ctest: openai_node_sdk_integration)
// Every server this file starts is SIGTERMed in `after`, whether the tests passed or not, and killed
// outright if the test process exits some other way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startServeSim as startServeSimProcess } from '../serve_sim.mjs';

const BIN = process.env.NOVELTYGRID_BIN;
const API_KEY = 'sk-noveltygrid-sdk-test';
const startServeSim = (extraArgs = []) => startServeSimProcess(BIN, API_KEY, extraArgs);

function client(port, apiKey = API_KEY) {
  return new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey, maxRetries: 0, timeout: 30_000 });
}

function assertEmbeddings(response, count, dimensions) {
  assert.equal(response.object, 'list');
  assert.equal(response.data.length, count);
  response.data.forEach((item, i) => {
    assert.equal(item.index, i);
    assert.equal(item.embedding.length, dimensions);
    assert.ok(item.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)), 'non-finite component');
    assert.ok(item.embedding.some((x) => x !== 0), 'all-zero embedding');
  });
}

const CHAT = {
  model: 'sim:explorer',
  messages: [{ role: 'user', content: 'Name one unusual use for a brick.' }],
  temperature: 1.0,
  max_tokens: 200,
  seed: 7,
  n: 3,
};

describe('openai-node against serve-sim', { timeout: 120_000 }, () => {
  assert.ok(BIN, 'set NOVELTYGRID_BIN to the noveltygrid binary');
  const servers = [];
  let port;
  let faultyPort;

  before(async () => {
    const plain = startServeSim();
    const faulty = startServeSim(['--fault-rate', '1.0', '--faults', '429']);
    servers.push(plain, faulty);
    [port, faultyPort] = await Promise.all([plain.port, faulty.port]);
  });

  after(async () => {
    const exits = await Promise.all(servers.map((s) => s.stop()));
    exits.forEach((exit, i) => assert.equal(exit.code, 0, `serve-sim exited with ${JSON.stringify(exit)}:\n${servers[i].output()}`));
  });

  it('chat.completions.create with n=3 gives 3 choices, usage and the same content twice', async () => {
    const openai = client(port);
    const first = await openai.chat.completions.create(CHAT);
    assert.equal(first.object, 'chat.completion');
    assert.equal(first.choices.length, 3);
    first.choices.forEach((choice, i) => {
      assert.equal(choice.index, i);
      assert.equal(choice.message.role, 'assistant');
      assert.equal(typeof choice.message.content, 'string');
      assert.ok(choice.message.content.length > 0);
    });
    assert.ok(first.usage.prompt_tokens > 0);
    assert.ok(first.usage.completion_tokens > 0);
    assert.equal(first.usage.total_tokens, first.usage.prompt_tokens + first.usage.completion_tokens);

    const second = await openai.chat.completions.create(CHAT);
    assert.deepEqual(second.choices.map((c) => c.message.content), first.choices.map((c) => c.message.content));
    assert.equal(second.id, first.id);
  });

  it('embeddings.create with array input: the SDK default (base64, decoded by the SDK) and float', async () => {
    const openai = client(port);
    const input = ['a brick as a doorstop', 'a brick as a bookend', 'grind the brick into pigment'];
    const base64 = await openai.embeddings.create({ model: 'lexical', input });  // 256 dimensions
    assertEmbeddings(base64, input.length, 256);
    const float = await openai.embeddings.create({ model: 'lexical', input, encoding_format: 'float' });
    assertEmbeddings(float, input.length, 256);
    // float32 on the wire either way: both encodings must give the same numbers.
    assert.deepEqual(float.data.map((d) => d.embedding), base64.data.map((d) => d.embedding));

    const sized = await openai.embeddings.create({ model: 'lexical-64', input, dimensions: 64, encoding_format: 'float' });
    assertEmbeddings(sized, input.length, 64);
    assert.ok(sized.usage.prompt_tokens > 0);
  });

  it('a wrong API key raises AuthenticationError (401)', async () => {
    await assert.rejects(client(port, 'sk-wrong').chat.completions.create(CHAT), (err) => {
      assert.ok(err instanceof OpenAI.AuthenticationError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.status, 401);
      assert.ok(!String(err.message).includes(API_KEY), 'the key is echoed');
      return true;
    });
  });

  it('an unknown model raises NotFoundError (404)', async () => {
    const openai = client(port);
    await assert.rejects(openai.chat.completions.create({ ...CHAT, model: 'sim:no-such-model' }), (err) => {
      assert.ok(err instanceof OpenAI.NotFoundError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.status, 404);
      return true;
    });
    await assert.rejects(openai.embeddings.create({ model: 'no-such-embedder', input: ['x'] }), OpenAI.NotFoundError);
  });

  it('an injected 429 raises RateLimitError after exactly one request (maxRetries: 0)', async () => {
    await assert.rejects(client(faultyPort).chat.completions.create(CHAT), (err) => {
      assert.ok(err instanceof OpenAI.RateLimitError, `got ${err?.constructor?.name}: ${err?.message}`);
      assert.equal(err.status, 429);
      return true;
    });
    const stats = await (await fetch(`http://127.0.0.1:${faultyPort}/stats`)).json();
    assert.equal(stats.chat, 1);
    assert.equal(stats.faults_injected, 1);
  });
});
