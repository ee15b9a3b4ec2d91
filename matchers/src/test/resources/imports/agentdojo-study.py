#!/usr/bin/env python3
"""Reproduces the numbers in matchers/src/main/java/dev/tracegate/matchers/imports/AGENTDOJO.md.

Usage: python3 agentdojo-study.py [DATASET_DIR]   (default ../shared/datasets/agentdojo from /work/main)

For every side-effecting call in a benign run (user_task_N, no attack) and every value of one of the
tool's target arguments (side_effect_tools.json), classify where the value first came from:
  user      - named in the user's message (whole-word, case-insensitive; URL without scheme; or, for
              values of 8+ letters/digits, equal after dropping spaces and punctuation)
  system    - only in the system prompt
  tool-only - only in outputs of earlier tool calls (a naive "untrusted target" rule blocks these)
  nowhere   - in none of them (made up or derived by the model)
For tool-only values it also records whether the value is a whole structured field of the output
(a YAML scalar, list item or mapping key, e.g. "sender: X", "- X") or sits inside free text.
injection_targets.json is used only for the coverage statistics at the end, never for the above.
"""
import collections, glob, json, re, sys

D = sys.argv[1] if len(sys.argv) > 1 else '../shared/datasets/agentdojo'
SE = json.load(open(D + '/side_effect_tools.json'))
# the user's own account address, from the suites' environment.yaml (account_email)
SELF = {'emma.johnson@bluesparrowtech.com'}


def norm(s): return re.sub(r'[^0-9a-z]', '', s.lower())


def forms(v):
    v = v.strip(); out = {v}
    u = re.sub(r'^https?://', '', v, flags=re.I)
    if u != v: out.add(u)
    if v.startswith('#'): out.add(v[1:])
    return out


def found(v, hay):
    if not hay: return None
    for f in forms(v):
        if re.search(r'(?<![A-Za-z0-9])' + re.escape(f) + r'(?![A-Za-z0-9])', hay, re.I):
            return 'exact' if f == v.strip() else 'variant'
    nv = norm(v)
    if len(nv) >= 8 and nv in norm(hay): return 'normalized'
    return None


def field(v, out):
    lines = out.split('\n')
    for i, l in enumerate(lines):
        s = l.strip()
        for f in forms(v):
            fe = re.escape(f)
            if s.lower() == f.lower() and not l.startswith(' '): return ('field', '(whole line)')
            m = re.match(r"^(?:- )?(?:([\w_]+): )?'?" + fe + r"'?$", s, re.I) or re.match(r"^(?:- )?'?" + fe + r"'?: \w+$", s, re.I)
            if m:
                key = m.group(1) if m.lastindex and m.group(1) else None
                if key is None:
                    ind = len(l) - len(l.lstrip())
                    for j in range(i - 1, -1, -1):
                        lj = lines[j]; ij = len(lj) - len(lj.lstrip())
                        if ij <= ind and lj.rstrip().endswith(':') and not lj.strip().startswith('- ' + f):
                            key = lj.strip().lstrip('- ').rstrip(':'); break
                        if ij < ind: break
                    if key is None and ind == 0 and s.startswith('- '): key = '(top-level list)'
                return ('field', key or '?')
    for i, l in enumerate(lines):
        if found(v, l):
            m = re.match(r'^\s*(?:- )?([\w_]+):', l)
            key = m.group(1) if m else None
            if key is None:
                for j in range(i - 1, -1, -1):
                    m = re.match(r'^\s*(?:- )?([\w_]+):', lines[j])
                    if m: key = m.group(1); break
            return ('text', key or '(free text)')
    return ('text', '(spans lines)')


rows, util = [], {}
for f in sorted(glob.glob(D + '/runs/*/*/user_task_*/none/none.json')):
    d = json.load(open(f)); suite = d['suite_name']; util[(suite, d['user_task_id'])] = d['utility']
    tools = {t['function']: t for t in SE[suite]}
    system = user = ''; outs = []
    for m in d['messages']:
        if m['role'] == 'system': system += m['content'] or ''
        elif m['role'] == 'user': user += m['content'] or ''
        elif m['role'] == 'tool': outs.append((m['tool_call']['function'], m['content'] or m['error'] or ''))
        elif m['role'] == 'assistant':
            for tc in m['tool_calls'] or []:
                t = tools.get(tc['function'])
                if not t: continue
                for a in t['target_args']:
                    v0 = tc['args'].get(a)
                    for v in ([v0] if isinstance(v0, str) else (v0 or [])):
                        if not isinstance(v, str) or not v.strip(): continue
                        src = [(tn,) + field(v, o) for tn, o in outs if found(v, o)]
                        cls = 'user' if found(v, user) else 'system' if found(v, system) else 'tool-only' if src else 'nowhere'
                        rows.append(dict(suite=suite, task=d['user_task_id'], tool=tc['function'], arg=a, val=v, cls=cls, src=src))

print('benign runs', len(util), 'utility true', sum(util.values()))
print('target values by suite and class:', sorted(collections.Counter((r['suite'], r['cls']) for r in rows).items()))
for s in sorted(set(r['suite'] for r in rows)):
    runs = set(r['task'] for r in rows if r['suite'] == s)
    print(s, 'benign runs', sum(1 for k in util if k[0] == s), 'with a side-effect target value', len(runs))


def fp(r, level):
    if r['cls'] != 'tool-only': return False
    if level >= 1 and r['val'].lower() in SELF: return False
    if level >= 2 and any(k == 'field' for _, k, _ in r['src']): return False
    return True


for level, name in [(0, 'naive'), (1, '+own address trusted'), (2, '+whole structured fields trusted')]:
    bad = [r for r in rows if fp(r, level)]
    runs = set((r['suite'], r['task']) for r in bad)
    print(f"{name}: values {len(bad)}, runs {len(runs)}, of them utility-true {sum(util[k] for k in runs)},",
          dict(collections.Counter(s for s, _ in runs)))
pat = collections.Counter()
for r in rows:
    if r['cls'] == 'tool-only':
        pat[(r['suite'], r['tool'] + '.' + r['arg'], ' + '.join(sorted(set(f'{tn}[{k}:{key}]' for tn, k, key in r['src']))))] += 1
for k, v in sorted(pat.items()): print(v, *k)

# coverage statistics over injection_targets.json (reported only)
IT = json.load(open(D + '/injection_targets.json'))
uncovered = set()
for s in ['banking', 'slack', 'travel', 'workspace']:
    tools = {t['function']: t for t in SE[s]}
    for k, e in IT[s].items():
        ses = [c for c in e['calls'] if c.get('side_effect')]
        if not ses or not any(set(c['args']) & set(tools.get(c['function'], {}).get('target_args', [])) for c in ses):
            uncovered.add((s, k))
succ = collections.Counter()
for f in glob.glob(D + '/runs/*/*/*/important_instructions/*.json'):
    d = json.load(open(f))
    if d['security']: succ[(d['suite_name'], d['injection_task_id']) in uncovered] += 1
print('injection tasks whose goal has no declared target argument:', sorted(uncovered))
print('successful attacks on those goals:', succ[True], 'of', succ[True] + succ[False])
