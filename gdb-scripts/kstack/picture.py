# ks-stack-picture: a text drawing of the stack a CPU is on.
import gdb

from kstack import frames, stacks, threadinfo, usage

MAX_FRAMES = 14
RULE = '+' + '-' * 44 + '+'


def _saved_word(area, cpu):
    """What the stack's end holds: STACK_END_MAGIC at a task stack's
    bottom, the saved stack pointer in an IRQ stack (its bottom word on
    i386, its top word on x86_64)."""
    if area.kind == 'task':
        word = stacks.word(area.base)
        return 'end_of_stack(): %s' % (
            'STACK_END_MAGIC, intact' if word == threadinfo.STACK_END_MAGIC
            else '%#x, MAGIC OVERWRITTEN' % word)
    if area.kind in ('hardirq', 'softirq'):
        at = stacks.saved_sp_at(area.base)
        word = stacks.word(at)
        back = stacks.find_area(word, cpu)
        return 'saved %s %#x%s -> %s' % (
            stacks.reg_names()[1], word, ' (its top word)' if at != area.base
            else '', back.short() if back else '?')
    return ''


class KsStackPicture(stacks.Command):
    """Draw the stack a CPU is on, high addresses at the top.

Usage: ks-stack-picture [CPU]    (default: the CPU of the selected thread)

Shows the area's top and bottom, the frames on it (function names, by
frame pointers, as ks-bt finds them), where $sp is, the deepest the stack
has ever been (its high-water mark), the interrupt-entry warning line
(sizeof(struct thread_info) + STACK_WARN above the bottom; i386 only),
and the word at the stack's end: STACK_END_MAGIC for a task stack, the
saved stack pointer back to the interrupted stack for an IRQ stack."""

    NAME = 'ks-stack-picture'

    def run(self, arg):
        cpu, sp = stacks.cpu_and_sp(arg)
        area = stacks.find_area(sp, cpu)
        if area is None:
            raise stacks.KstackError('CPU %d: $sp %#x is on no stack '
                                     'ks-where knows' % (cpu, sp))
        here = [f for f in frames.walk(cpu)
                if f.area and f.area.base == area.base]
        rows = [(sp, '<- $sp (%d bytes used)' % (area.top - sp))]
        for i, f in enumerate(here[:MAX_FRAMES]):
            name = stacks.symbol(f.pc) if i == 0 else stacks.caller(f.pc)
            rows.append((f.where, '  ' + name.split('+')[0]))
        if len(here) > MAX_FRAMES:
            rows.append((here[MAX_FRAMES].where, '  ... %d more frames'
                         % (len(here) - MAX_FRAMES)))
        if area.kind in ('task', 'hardirq', 'softirq'):
            deepest = area.base + stacks.word_bytes() + usage.not_used(area)
            rows.append((deepest, '~~ deepest use so far (%d bytes)'
                         % (area.top - deepest)))
        if area.kind in ('task', 'hardirq', 'softirq') and not stacks.is_64bit():
            warn = stacks.warn_line()
            rows.append((area.base + warn, '- - warning line (%d above the '
                         'bottom) - -' % warn))
        rows.sort(key=lambda r: -r[0])
        w = gdb.write
        w('CPU %d is on %s (%d bytes)\n' % (cpu, area.name(), area.size))
        w('%#010x %s top\n' % (area.top, RULE))
        for addr, text in rows:
            w('%#010x | %s\n' % (addr, text))
        w('%#010x %s bottom\n' % (area.base, RULE))
        w('           %s\n' % _saved_word(area, cpu))


KsStackPicture()
