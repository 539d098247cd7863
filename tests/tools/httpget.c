// SPDX-License-Identifier: GPL-2.0
/*
 * httpget - GET a URL for the VM tests (busybox-static's wget resolves even
 * numeric hosts through NSS, which the guest lacks, and crashes).
 *
 *   httpget http://IPV4:PORT/PATH [TIMEOUT_S]
 *
 * HTTP/1.0, the body on stdout; exit 0 for status 200, 1 for any other
 * status, 2 when it cannot connect, send or read within TIMEOUT_S (5).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = argc > 2 ? atoi(argv[2]) : 5 };
	char host[64], req[1024], *buf = NULL, *body;
	const char *path;
	size_t len = 0, cap = 0;
	unsigned int port;
	int fd, status;
	ssize_t n;

	if (argc < 2 || sscanf(argv[1], "http://%63[0-9.]:%u", host, &port) != 2) {
		fprintf(stderr, "usage: httpget http://IPV4:PORT/PATH [TIMEOUT_S]\n");
		return 2;
	}
	path = strchr(argv[1] + 7, '/');
	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("httpget: connect");
		return 2;
	}
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s:%u\r\n\r\n",
		     path ? path : "/", host, port);
	if (write(fd, req, n) != n)
		return 2;
	for (;;) {
		if (len + 65536 > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap + 1);
			if (!buf)
				return 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			perror("httpget: read");
			return 2;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (!buf)
		return 2;
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/%*s %d", &status) != 1)
		return 2;
	body = strstr(buf, "\r\n\r\n");
	if (body)
		fwrite(body + 4, 1, len - (body + 4 - buf), stdout);
	return status == 200 ? 0 : 1;
}
