// SPDX-License-Identifier: GPL-2.0
/*
 * jsoncheck - a strict JSON (RFC 8259) checker for the VM, which has no
 * python.  Reads stdin.
 *
 *   jsoncheck              exit 0 when stdin is one JSON value
 *   jsoncheck -l           ... when every non-empty line is one
 *   jsoncheck PATH         print the value at PATH, e.g. .counters.bypass,
 *                          [0].name, .a[2], . ; strings unquoted, others as JSON
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;
static const char *want;	/* remaining path, NULL once printed/absent */
static int found;

static void ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
}

static int value(int depth, int on_path);

static int string(const char **start, size_t *len)
{
	if (*p != '"')
		return -1;
	*start = ++p;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return -1;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return -1;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return -1;
			}
		}
		p++;
	}
	*len = (size_t)(p - *start);
	p++;
	return 0;
}

static int number(void)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return -1;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return 0;
}

/* Does the next path step name this key/index?  Advances want if so. */
static int step(const char *key, size_t len, long idx)
{
	const char *w = want, *end;

	if (!w || (*w != '.' && *w != '['))
		return 0;
	if (*w == '.')
		w++;
	if (key) {
		if (*w == '[')
			return 0;
		end = w + strcspn(w, ".[");
		if ((size_t)(end - w) == len && !strncmp(w, key, len)) {
			want = end;
			return 1;
		}
		return 0;
	}
	if (*w == '[' && strtol(w + 1, NULL, 10) == idx) {
		want = strchr(w, ']') + 1;
		return 1;
	}
	return 0;
}

static int value(int depth, int on_path)
{
	const char *start = p, *s;
	size_t len;
	long i = 0;
	int r;

	if (depth > 512)
		return -1;
	ws();
	start = p;
	if (on_path && want && !*want) {
		/* the value to print */
		const char *save = want;

		want = NULL;
		r = value(depth, 0);
		if (r)
			return r;
		if (*start == '"')
			printf("%.*s\n", (int)(p - start - 2), start + 1);
		else
			printf("%.*s\n", (int)(p - start), start);
		found = 1;
		(void)save;
		return 0;
	}
	switch (*p) {
	case '{':
		p++;
		ws();
		if (*p == '}') {
			p++;
			return 0;
		}
		for (;;) {
			const char *saved = want;
			int hit;

			ws();
			if (string(&s, &len))
				return -1;
			ws();
			if (*p++ != ':')
				return -1;
			hit = on_path && step(s, len, 0);
			if (value(depth + 1, hit))
				return -1;
			if (hit && !found)
				want = saved;
			ws();
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p++ != '}')
				return -1;
			return 0;
		}
	case '[':
		p++;
		ws();
		if (*p == ']') {
			p++;
			return 0;
		}
		for (;; i++) {
			const char *saved = want;
			int hit = on_path && step(NULL, 0, i);

			if (value(depth + 1, hit))
				return -1;
			if (hit && !found)
				want = saved;
			ws();
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p++ != ']')
				return -1;
			return 0;
		}
	case '"':
		return string(&s, &len);
	case 't':
		return strncmp(p, "true", 4) ? -1 : (p += 4, 0);
	case 'f':
		return strncmp(p, "false", 5) ? -1 : (p += 5, 0);
	case 'n':
		return strncmp(p, "null", 4) ? -1 : (p += 4, 0);
	default:
		return number();
	}
}

static int check(const char *doc)
{
	p = doc;
	if (value(0, want != NULL))
		return -1;
	ws();
	return *p ? -1 : 0;
}

int main(int argc, char **argv)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *line, *next;
	int lines = argc > 1 && !strcmp(argv[1], "-l");
	size_t r;

	if (!lines && argc > 1)
		want = strcmp(argv[1], ".") ? argv[1] : "";
	while (buf && (r = fread(buf + n, 1, cap - n - 1, stdin)) > 0) {
		n += r;
		if (n + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (!buf)
		return 2;
	buf[n] = 0;
	if (strlen(buf) != n) {
		fprintf(stderr, "jsoncheck: NUL byte in input\n");
		return 1;
	}
	if (!lines) {
		if (check(buf)) {
			fprintf(stderr, "jsoncheck: invalid JSON at offset %ld\n", (long)(p - buf));
			return 1;
		}
		if (argc > 1 && !found) {
			fprintf(stderr, "jsoncheck: no value at %s\n", argv[1]);
			return 1;
		}
		return 0;
	}
	for (line = buf; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? (*next = 0, next + 1) : line + strlen(line);
		if (!*line)
			continue;
		if (check(line)) {
			fprintf(stderr, "jsoncheck: invalid JSON line: %.80s\n", line);
			return 1;
		}
	}
	return 0;
}
