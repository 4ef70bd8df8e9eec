import { findInFileTail } from '../file-tail.js';
import type { ModelTurn } from '../host-adapter.js';
import { lastModelRecord, lastModelText, readChatLines } from './chat-records.js';

/** The chat file's latest model turn (with its tool calls once Gemini has written them). */
export function readLastModelTurn(chatFile: string): ModelTurn | null {
  return findInFileTail(chatFile, (tail) => {
    const record = lastModelRecord(readChatLines(tail.split('\n')));
    return record ? { id: record.id, timestamp: record.timestamp, toolCalls: record.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })) } : null;
  });
}

/** The model's last answer in the chat file, for an AfterAgent without prompt_response. */
export function readLastModelText(chatFile: string): string | null {
  return findInFileTail(chatFile, (tail) => lastModelText(readChatLines(tail.split('\n'))));
}
