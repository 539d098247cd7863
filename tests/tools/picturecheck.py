#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""picturecheck - reads gpuctl trace report's pictures and open formats as a
reader would (python3 standard library only), for tests/unit/test_trace_pictures.sh.

  picturecheck.py locate SVG FAULTS [PNG]
      FAULTS: lines "fault NS ADDR read|write GPU PID" (record_gen pictures).
      For each fault: its panel (GPU, read or write), the address range
      holding it (from the range labels), x from the time ticks' labels,
      y from the range's offset ticks' labels.  Prints "x y" per fault.
      With PNG (the SVG rendered by a browser): each fault's spot must be
      coloured, and the same spot in the other access's panel blank where
      no fault of that kind is near.  Exit 1 with the reasons.
  picturecheck.py chrome JSON      the trace-event format's required fields
  picturecheck.py csv CSV N        header and N rows of the documented columns
"""
import csv
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = '{http://www.w3.org/2000/svg}'
TIME_UNITS = {'ns': 1, 'µs': 1000, 'us': 1000, 'ms': 10**6, 's': 10**9}
SIZE_UNITS = {'B': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30, 'TiB': 1 << 40,
              'PiB': 1 << 50, 'EiB': 1 << 60}
CSV_COLUMNS = ['time_ns', 'event', 'pid', 'comm', 'gpu', 'gpu_uuid', 'address', 'bytes',
               'latency_ns', 'access', 'cause', 'duplicate', 'direction', 'batch', 'count',
               'src', 'dst']


def text(e):
    return ''.join(e.itertext()).strip()


def time_ns(label):
    m = re.fullmatch(r'([0-9.]+) (ns|µs|us|ms|s)', label)
    if not m:
        raise ValueError('time tick %r' % label)
    return float(m.group(1)) * TIME_UNITS[m.group(2)]


def offset_bytes(label):
    if label == '+0':
        return 0.0
    m = re.fullmatch(r'\+([0-9.]+) (B|KiB|MiB|GiB|TiB|PiB|EiB)', label)
    if not m:
        raise ValueError('offset tick %r' % label)
    return float(m.group(1)) * SIZE_UNITS[m.group(2)]


def fit(points):
    """a, b of v -> a + b * value, from (value, pixel) pairs; checks they lie on it."""
    (v0, p0), (v1, p1) = points[0], points[-1]
    if v1 == v0:
        raise ValueError('ticks with one value')
    b = (p1 - p0) / (v1 - v0)
    a = p0 - b * v0
    for v, p in points:
        if abs(a + b * v - p) > 0.6:
            raise ValueError('tick %r at %.2f, not %.2f' % (v, p, a + b * v))
    return a, b


def panels(svg):
    root = ET.parse(svg).getroot()
    xt = [(time_ns(text(t)), float(t.get('x'))) for t in root.iter(NS + 'text')
          if t.get('class') == 'xtick']
    # every time axis of the picture has the same ticks: one of them
    xs = sorted(set(xt))
    xa, xb = fit(xs)
    out = {}
    for g in root.iter(NS + 'g'):
        if g.get('class') != 'panel':
            continue
        segs = []
        for s in g.findall(NS + 'g'):
            if s.get('class') != 'seg':
                continue
            lab = [text(t) for t in s.iter(NS + 'text') if t.get('class') == 'seglabel'][0]
            base = int(lab.split(',')[0], 16)
            yt = [(offset_bytes(text(t)), float(t.get('y')) - 4) for t in s.iter(NS + 'text')
                  if t.get('class') == 'ytick']
            rect = s.find(NS + 'rect')
            top = float(rect.get('y'))
            size = int(s.get('data-last'), 16) - base + 1
            segs.append((base, size, fit(yt), top, top + float(rect.get('height'))))
        out[(int(g.get('data-group')), g.get('data-kind'))] = segs
    return (xa, xb), out


def where(xfit, pans, gpu, kind, ns, addr):
    for base, size, (ya, yb), top, bottom in pans.get((gpu, kind), []):
        if base <= addr < base + size:
            y = ya + yb * (addr - base)
            if not top <= y <= bottom:
                raise ValueError('0x%x: y %.1f outside its range [%.0f, %.0f]' %
                                 (addr, y, top, bottom))
            return xfit[0] + xfit[1] * ns, y
    raise ValueError('no range of panel %s/%s holds 0x%x' % (gpu, kind, addr))


def png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, hdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError('PNG form %s not read here' % (hdr,))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                cur[i] = (cur[i] + a) & 255
            elif f == 2:
                cur[i] = (cur[i] + b) & 255
            elif f == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(cur)
        prev = cur
    return w, h, bpp, rows


def coloured(img, x, y):
    """A saturated pixel (the kinds' hues) within one pixel of (x, y)."""
    w, h, bpp, rows = img
    for dy in (0, -1, 1):
        for dx in (0, -1, 1):
            xi, yi = int(x) + dx, int(y) + dy
            if 0 <= xi < w and 0 <= yi < h:
                r, g, b = rows[yi][xi * bpp:xi * bpp + 3]
                if max(r, g, b) - min(r, g, b) > 40:
                    return True
    return False


def locate(argv):
    xfit, pans = panels(argv[0])
    faults = [l.split() for l in open(argv[1]) if l.startswith('fault ')]
    img = png(argv[2]) if len(argv) > 2 else None
    bad = 0
    spots = []
    for _, ns, addr, acc, gpu, _ in faults:
        kind = 'fault-' + acc
        x, y = where(xfit, pans, int(gpu), kind, int(ns), int(addr, 16))
        spots.append((int(gpu), acc, x, y, int(ns), int(addr, 16)))
        print('%.1f %.1f' % (x, y))
    for gpu, acc, x, y, ns, addr in spots:
        if img and not coloured(img, x, y):
            print('FAULT %s at %d ns, 0x%x: no colour at (%.1f, %.1f)' % (acc, ns, addr, x, y))
            bad += 1
        other = 'read' if acc == 'write' else 'write'
        if not img or (gpu, 'fault-' + other) not in pans:
            continue
        ox, oy = where(xfit, pans, gpu, 'fault-' + other, ns, addr)
        near = [s for s in spots if s[0] == gpu and s[1] == other and
                abs(s[2] - ox) < 8 and abs(s[3] - oy) < 8]
        if not near and coloured(img, ox, oy):
            print('%s panel coloured at (%.1f, %.1f) where no fault is' % (other, ox, oy))
            bad += 1
    return 1 if bad else 0


# The trace-event format (the JSON object form): what Perfetto's JSON importer
# and chrome://tracing need of each event, checked strictly.
TOP_KEYS = {'traceEvents', 'displayTimeUnit', 'otherData', 'systemTraceEvents', 'stackFrames',
            'samples', 'metadata'}
PHASES = set('BEXiIbenstfPCOMNDRcv(')
META_NAMES = {'process_name': str, 'process_labels': str, 'thread_name': str,
              'process_sort_index': int, 'thread_sort_index': int}


def _no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError('duplicate key in %r' % keys)
    return dict(pairs)


def _bad_constant(c):
    raise ValueError('%s is not JSON' % c)


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _event_why(e):
    """What is wrong with one event, or None."""
    if not isinstance(e, dict):
        return 'not an object'
    ph = e.get('ph')
    if not isinstance(ph, str) or len(ph) != 1 or ph not in PHASES:
        return 'phase %r' % (ph,)
    if not isinstance(e.get('name'), str) or not e['name']:
        return 'no name'
    for k in ('pid', 'tid'):
        if not isinstance(e.get(k), int) or isinstance(e[k], bool) or e[k] < 0:
            return '%s %r' % (k, e.get(k))
    if 'cat' in e and not isinstance(e['cat'], str):
        return 'cat %r' % (e['cat'],)
    if 'args' in e and not isinstance(e['args'], dict):
        return 'args not an object'
    if ph == 'M':
        want = META_NAMES.get(e['name'])
        if want is None:
            return 'metadata name %r' % e['name']
        key = 'sort_index' if want is int else 'name'
        if not isinstance(e.get('args', {}).get(key), want):
            return 'metadata without args.%s' % key
        return None
    if not _num(e.get('ts')) or e['ts'] < 0:
        return 'ts %r' % (e.get('ts'),)
    if ph == 'X' and (not _num(e.get('dur')) or e['dur'] < 0):
        return 'X without dur'
    if ph in 'iI' and e.get('s', 't') not in ('g', 'p', 't'):
        return 'instant scope %r' % (e.get('s'),)
    return None


def _nesting(evs):
    """Spans on one (pid, tid) must nest: one that ends inside a later one's is broken."""
    tracks = {}
    for e in evs:
        if e['ph'] == 'X':
            s = round(e['ts'] * 1000)
            tracks.setdefault((e['pid'], e['tid']), []).append((s, s + round(e['dur'] * 1000), e))
    bad = []
    for key, spans in tracks.items():
        spans.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, t, e in spans:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack and t > stack[-1][1]:
                bad.append('track %r: %s [%d, %d) ends after %s [%d, %d) that holds its start'
                           % (key, e['name'], s, t, stack[-1][2]['name'], stack[-1][0], stack[-1][1]))
            stack.append((s, t, e))
    return bad


def chrome(argv):
    with open(argv[0], encoding='utf-8', errors='strict') as f:
        doc = json.load(f, object_pairs_hook=_no_dups, parse_constant=_bad_constant)
    if not isinstance(doc, dict) or not isinstance(doc.get('traceEvents'), list):
        print('not an object with a traceEvents array')
        return 1
    extra = set(doc) - TOP_KEYS
    if extra or doc.get('displayTimeUnit', 'ms') not in ('ms', 'ns') or \
            not isinstance(doc.get('otherData', {}), dict):
        print('top level: unknown keys %r or a bad displayTimeUnit/otherData' % sorted(extra))
        return 1
    evs = doc['traceEvents']
    bad = 0
    for e in evs:
        why = _event_why(e)
        if why:
            bad += 1
            if bad < 5:
                print('event %s: %s' % (json.dumps(e)[:200], why))
    if bad:
        print('%d events, %d bad' % (len(evs), bad))
        return 1
    # gpuctl's own promise: every process and track an event is on is named
    named = {(e['pid'], None) for e in evs if e['name'] == 'process_name'}
    named |= {(e['pid'], e['tid']) for e in evs if e['name'] == 'thread_name'}
    unnamed = sorted({(e['pid'], e['tid']) for e in evs if e['ph'] != 'M' and e.get('s') != 'g'
                      and ((e['pid'], None) not in named or (e['pid'], e['tid']) not in named)})
    nest = _nesting(evs)
    for why in (['unnamed process/track %r' % (u,) for u in unnamed[:4]] + nest[:4]):
        print(why)
    print('%d events' % len(evs))
    return 1 if unnamed or nest else 0


def csv_check(argv):
    rows = list(csv.reader(open(argv[0], newline='')))
    if rows[0] != CSV_COLUMNS:
        print('header %r' % rows[0])
        return 1
    bad = [r for r in rows[1:] if len(r) != len(CSV_COLUMNS)]
    if bad or len(rows) - 1 != int(argv[1]):
        print('%d rows (want %s), %d of the wrong width: %r' % (len(rows) - 1, argv[1],
                                                               len(bad), bad[:2]))
        return 1
    return 0


if __name__ == '__main__':
    cmds = {'locate': locate, 'chrome': chrome, 'csv': csv_check}
    try:
        sys.exit(cmds[sys.argv[1]](sys.argv[2:]))
    except (ValueError, KeyError, IndexError, OSError, ET.ParseError) as ex:
        print('picturecheck: %s' % ex)
        sys.exit(1)
