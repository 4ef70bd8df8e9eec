/** `count` lines of a memtrace export (observations 1…count of one session), as `memtrace import` reads them. */
export async function* exportLines(count: number): AsyncGenerator<string> {
  for (let i = 1; i <= count; i += 1) {
    yield JSON.stringify({
      id: i,
      session_id: 's',
      project: '/work/app',
      created_at: '2026-01-05T09:00:00.000Z',
      type: 'discovery',
      title: `line ${i}`,
      subtitle: '',
      narrative: 'imported',
      facts: [],
      concepts: [],
      files_read: [],
      files_modified: [],
    });
  }
}
