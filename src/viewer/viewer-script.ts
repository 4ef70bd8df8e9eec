/**
 * The viewer's one script: results appear as a search is typed, from the viewer's own JSON
 * route (same origin, the cookie rides along). Without scripts the form submits to /search.
 * Results are built as DOM nodes with textContent: no markup from the store is ever parsed.
 */
export const LIVE_SEARCH_SCRIPT = `(() => {
  const input = document.getElementById('q');
  const main = document.getElementById('main');
  if (!input || !main) return;
  let timer = null, seq = 0;
  const el = (tag, props, ...kids) => { const n = document.createElement(tag); Object.assign(n, props); for (const k of kids) n.append(k); return n; };
  const render = (query, body) => {
    const list = el('ul', { className: 'list', id: 'results' });
    if (body.error) list.append(el('li', { className: 'empty', textContent: body.error }));
    else if (body.results.length === 0) list.append(el('li', { className: 'empty', textContent: 'No memory matches \\u201c' + query + '\\u201d.' }));
    for (const h of body.results || []) {
      const href = h.kind === 'observation' ? '/observation/' + h.id : '/session/' + encodeURIComponent(h.session_id);
      list.append(el('li', {},
        el('span', { className: 'tag' + (h.kind === 'summary' ? ' summary' : ''), textContent: h.kind === 'summary' ? 'session summary' : h.type }),
        el('a', { href, textContent: h.title || '(untitled)' }),
        el('div', { className: 'snippet', textContent: h.snippet }),
        el('div', { className: 'meta', textContent: h.created_at.slice(0, 16).replace('T', ' ') + ' \\u00b7 ' + (h.kind === 'observation' ? '#' + h.id : 'summary ' + h.id) + (h.project ? ' \\u00b7 ' + h.project : '') })));
    }
    main.className = 'single';
    main.replaceChildren(el('h1', { textContent: 'Search: ' + query }), list);
  };
  const run = async () => {
    const query = input.value.trim();
    if (query === '') return;
    const mine = ++seq;
    const res = await fetch('/api/search?q=' + encodeURIComponent(query), { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    const body = await res.json().catch(() => ({ error: 'search failed' }));
    if (mine === seq) render(query, res.ok ? body : { error: body.error || 'search failed' });
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(run, 200); });
})();`;
