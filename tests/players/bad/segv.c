/* Reads its turn, then writes through a null pointer (crashed: SIGSEGV). */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[1 << 16];
    while (fgets(line, sizeof line, stdin))
        if (strstr(line, "\"your_turn\"")) {
            fprintf(stderr, "about to crash\n");
            volatile int *p = NULL;
            *p = 42;
        }
    return 0;
}
