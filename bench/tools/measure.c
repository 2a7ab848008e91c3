/* measure: run a command, then write "<exit status> <wall seconds> <peak RSS KiB>" to a file.
 * The peak RSS is the largest of the command and the descendants it waited for (wait4).
 * Usage: measure OUT_FILE COMMAND [ARGS...]. Exits with the command's status (128 + signal
 * if it was killed). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_FILE COMMAND [ARGS...]\n", argv[0]);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("execvp");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[1], "w");
    if (f) {
        fprintf(f, "%d %.3f %ld\n", code, wall, usage.ru_maxrss);
        fclose(f);
    }
    return code;
}
