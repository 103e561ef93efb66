// What a customer's text back means: exact phrases after normalising, in every language of the
// customer page, and the carriers' keywords as the provider reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normaliseReply, readSmsReply, smsReplyPhrases, type SmsVerb } from '../../src/domain/sms-reply.ts';
import { SUPPORTED_LANGUAGES } from '../../src/domain/branch-settings.ts';

const MESSAGES = path.resolve(import.meta.dirname, '../../src/i18n/messages/customer');

test("the customer page's own buttons, texted back in each of its languages, mean what the buttons do", () => {
  for (const lang of SUPPORTED_LANGUAGES) {
    const texts = JSON.parse(readFileSync(path.join(MESSAGES, `${lang}.json`), 'utf8')) as Record<string, unknown>;
    const onMyWay = texts['action.onMyWay'] as string;
    const snooze = texts['action.snooze'] as Record<string, string>;
    const fiveMore = (snooze[new Intl.PluralRules(lang).select(5)] ?? snooze.other!).replace('{count}', '5');
    assert.equal(readSmsReply(onMyWay), 'acknowledge', `${lang}: "${onMyWay}"`);
    assert.equal(readSmsReply(fiveMore), 'snooze', `${lang}: "${fiveMore}"`);
  }
});

test("digits, the short words and the carriers' keywords", () => {
  const cases: Array<[string, SmsVerb]> = [
    ['1', 'acknowledge'],
    [' 1 ', 'acknowledge'],
    ['1.', 'acknowledge'],
    ['OK', 'acknowledge'],
    ['ok!', 'acknowledge'],
    ['Okay 👍', 'acknowledge'],
    ['On my way', 'acknowledge'],
    ["I'm on my way", 'acknowledge'],
    ['ON MY WAY!!!', 'acknowledge'],
    ['١', 'acknowledge'],
    ["j'arrive", 'acknowledge'],
    ['jarrive', 'acknowledge'],
    ['voy para alla', 'acknowledge'],
    ['BIN UNTERWEGS', 'acknowledge'],
    ['في الطريق', 'acknowledge'],
    ['5', 'snooze'],
    ['٥', 'snooze'],
    ['۵', 'snooze'],
    ['later', 'snooze'],
    ['Later.', 'snooze'],
    ['5 min', 'snooze'],
    ['plus tard', 'snooze'],
    ['mas tarde', 'snooze'],
    ['más tarde', 'snooze'],
    ['Später', 'snooze'],
    ['spater', 'snooze'],
    ['più tardi', 'snooze'],
    ['لاحقا', 'snooze'],
    ['STOP', 'stop'],
    ['Stop', 'stop'],
    ['stop.', 'stop'],
    ['STOPALL', 'stop'],
    ['UNSUBSCRIBE', 'stop'],
    ['cancel', 'stop'],
    ['END', 'stop'],
    ['QUIT', 'stop'],
    ['arrêt', 'stop'],
    ['ARRET', 'stop'],
    ['stopp', 'stop'],
    ['START', 'start'],
    ['yes', 'start'],
    ['UNSTOP', 'start'],
    ['HELP', 'help'],
    ['info', 'help'],
    ['aide', 'help'],
    ['Hilfe', 'help'],
    ['مساعدة', 'help'],
  ];
  for (const [text, verb] of cases) assert.equal(readSmsReply(text), verb, `"${text}"`);
});

test('anything else is not a command: a reply is read whole, never by a word in it', () => {
  for (const text of [
    '',
    ' ',
    '!!',
    'not on my way',
    'ok thanks',
    '15',
    '55',
    '1 5',
    'stop it please',
    'yes please',
    'what?',
    'x'.repeat(500),
    `on my way${' '.repeat(300)}`,
  ]) {
    assert.equal(readSmsReply(text), 'unrecognised', `"${text.slice(0, 40)}"`);
  }
});

test('every phrase is one verb, and reads back as itself after normalising', () => {
  const phrases = smsReplyPhrases();
  assert.ok(phrases.size > 80, `only ${phrases.size} phrases`);
  for (const [phrase, verb] of phrases) {
    assert.equal(normaliseReply(phrase), phrase);
    assert.equal(readSmsReply(phrase), verb);
  }
  const verbs = new Set(phrases.values());
  assert.deepEqual([...verbs].sort(), ['acknowledge', 'help', 'snooze', 'start', 'stop']);
});
