/* broken.c -- a course test bot in C that does not compile (a missing
 * semicolon): the student is shown gcc's message. */
#include <stdio.h>

int main(void)
{
    int moves = 0
    return moves;
}
