#!/usr/bin/env python3
"""test_cpu.py -- each ctest test's CPU seconds (user + system of the test and its children), for
the running-time table of tests/README.md: CPU time, unlike wall time, hardly depends on what
else the machine runs.  Runs the tests of a build folder (ctest's selection options) N at a time
under `nice -n 10`, with each test's ENVIRONMENT and WORKING_DIRECTORY, and writes
{name: {cpu, user, wall, rc, labels}} to OUT.json (tests already passed there are not rerun).

  scripts/test_cpu.py BUILD OUT.json [-L LABEL] [-LE LABEL] [-R REGEX] [-E REGEX] [-j N] [VAR=VALUE ...]
  e.g. scripts/test_cpu.py build-asan asan.json -LE python ASAN_OPTIONS=detect_leaks=1
"""
import json, os, queue, subprocess, sys, threading, time

if len(sys.argv) < 3:
    sys.exit(__doc__)
build, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
select, jobs, extra = [], 2, {}
i = 0
while i < len(args):
    if args[i] in ('-L', '-LE', '-R', '-E'):
        select += args[i:i + 2]; i += 2
    elif args[i] == '-j':
        jobs = int(args[i + 1]); i += 2
    elif '=' in args[i]:
        k, v = args[i].split('=', 1); extra[k] = v; i += 1
    else:
        sys.exit(f'test_cpu.py: unknown argument {args[i]!r}\n' + __doc__)
info = json.loads(subprocess.check_output(['ctest', '--show-only=json-v1'] + select, cwd=build))
res = json.load(open(out)) if os.path.exists(out) else {}
todo = queue.Queue()
for t in info['tests']:
    props = {p['name']: p['value'] for p in t.get('properties', [])}
    if t['name'] in res and res[t['name']]['rc'] in (0, 77):
        continue
    env = dict(os.environ, **extra)
    for kv in props.get('ENVIRONMENT', []):
        k, v = kv.split('=', 1); env[k] = v
    todo.put((t['name'], t['command'], props.get('WORKING_DIRECTORY', build), env,
              props.get('LABELS', [])))
lock = threading.Lock()

def worker():
    while True:
        try:
            name, cmd, cwd, env, labels = todo.get_nowait()
        except queue.Empty:
            return
        t0 = time.time()
        p = subprocess.Popen(['nice', '-n', '10'] + cmd, cwd=cwd, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text = []
        reader = threading.Thread(target=lambda: text.append(p.stdout.read()))
        reader.start()
        _, status, ru = os.wait4(p.pid, 0)  # the rusage of this test's process tree alone
        reader.join()
        rc = os.waitstatus_to_exitcode(status)
        with lock:
            res[name] = dict(cpu=round(ru.ru_utime + ru.ru_stime, 2), user=round(ru.ru_utime, 2),
                             wall=round(time.time() - t0, 1), rc=rc, labels=labels)
            print(f'{name:32s} cpu {res[name]["cpu"]:8.2f} s  wall {res[name]["wall"]:7.1f} s  rc {rc}',
                  flush=True)
            if rc not in (0, 77):
                sys.stdout.write(text[0][-3000:].decode(errors='replace'))
            with open(out, 'w') as f:
                json.dump(res, f, indent=1)

threads = [threading.Thread(target=worker) for _ in range(jobs)]
for t in threads:
    t.start()
for t in threads:
    t.join()
cpu = sorted(((r['cpu'], n) for n, r in res.items()), reverse=True)
print(f'{len(res)} tests, {sum(c for c, _ in cpu):.1f} CPU s; costliest:',
      ', '.join(f'{n} {c:.1f}' for c, n in cpu[:8]))
