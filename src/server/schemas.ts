import { z } from 'zod';

/** Request bodies of SPEC §4.3. Unknown extra fields are ignored: hook payloads grow over time. */

const id = z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters');
const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullish();
const path = optionalText(4096);
const durationMs = z.number().int('must be a whole number').min(0).max(86_400_000).nullish();

export const initBody = z.object({
  session_id: id,
  project: optionalText(4096),
  prompt: optionalText(200_000),
  prompt_id: id.nullish(),
  platform: optionalText(64),
  cwd: path,
  transcript_path: path,
  source: optionalText(32),
});

/** tool_input and tool_response are any JSON value, but must be present (a failure brings `error` instead). */
const presentJson = z.custom<unknown>((value) => value !== undefined, { message: 'is required' });

export const observationBody = z
  .object({
    session_id: id,
    tool_use_id: id.nullish(),
    tool_name: id,
    tool_input: presentJson,
    tool_response: z.unknown().optional(),
    error: optionalText(200_000),
    is_interrupt: z.boolean().nullish(),
    duration_ms: durationMs,
    agent_id: id.nullish(),
    prompt_id: id.nullish(),
    cwd: path,
    transcript_path: path,
  })
  .superRefine((body, ctx) => {
    if (body.tool_response === undefined && (body.error === undefined || body.error === null)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['tool_response'], message: 'is required' });
    }
  });

export const summarizeBody = z.object({
  session_id: id,
  last_assistant_message: optionalText(200_000),
  prompt_id: id.nullish(),
  transcript_path: path,
});

export const endBody = z.object({ session_id: id, reason: optionalText(64), transcript_path: path });

export type InitBody = z.infer<typeof initBody>;
export type ObservationBody = z.infer<typeof observationBody>;
export type SummarizeBody = z.infer<typeof summarizeBody>;
export type EndBody = z.infer<typeof endBody>;
