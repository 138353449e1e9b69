/*
 * qemu-exit [STATUS]: end the QEMU run with a status the host can read.
 *
 * QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4) makes
 * QEMU exit with (value << 1) | 1 when the guest writes a value to its port,
 * so vm/session/session.py reads an odd exit code as "the guest said (code - 1) / 2".
 * tinyconfig has no ACPI, so poweroff would only halt the CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>
#include <termios.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;

	/*
	 * Lines written to the serial console may still sit in the tty
	 * buffer or the UART: wait until they are sent, or the host would
	 * never see the last of them (KSTACK-DONE, say).
	 */
	tcdrain(STDOUT_FILENO);

	if (ioperm(DEBUG_EXIT_PORT, 4, 1) != 0) {
		perror("qemu-exit: ioperm");
		return 1;
	}
	outb((unsigned char)status, DEBUG_EXIT_PORT);
	/* Only reached when QEMU has no isa-debug-exit device. */
	fprintf(stderr, "qemu-exit: no isa-debug-exit device at 0x%x\n",
		DEBUG_EXIT_PORT);
	return 1;
}
