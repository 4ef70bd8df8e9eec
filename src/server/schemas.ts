import { z } from 'zod';

/** Request bodies of SPEC §4.3. Unknown extra fields are ignored: hook payloads grow over time. */

const id = z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullish();

export const initBody = z.object({
  session_id: id,
  project: optionalText(512),
  prompt: optionalText(100_000),
  platform: optionalText(64),
});

/** tool_input and tool_response are any JSON value, but must be present. */
const presentJson = z.custom<unknown>((value) => value !== undefined, { message: 'is required' });

export const observationBody = z.object({
  session_id: id,
  tool_use_id: id.nullish(),
  tool_name: id,
  tool_input: presentJson,
  tool_response: presentJson,
  cwd: optionalText(4096),
});

export const summarizeBody = z.object({
  session_id: id,
  last_assistant_message: optionalText(200_000),
});

export const endBody = z.object({ session_id: id });

export type InitBody = z.infer<typeof initBody>;
export type ObservationBody = z.infer<typeof observationBody>;
export type SummarizeBody = z.infer<typeof summarizeBody>;
