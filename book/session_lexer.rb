# book/session_lexer.rb: the workbook's [source,session] blocks, the
# transcripts of book/transcripts.py, highlighted as a terminal shows them.
# Loaded by book/build.sh (asciidoctor -r) for the HTML and the PDF.
#
# Rouge's own console lexer takes every line starting with "#" as a
# comment (gdb's backtrace lines) and highlights commands as shell, so the
# workbook has this one: a line starting with a prompt, "(gdb) " or
# "crash> ", is a command: the prompt grey, the command bold. Everything
# else is output, plain. The "# " lines at the top (what the session was
# run on) and the wrap mark that book/transcripts.py puts at the end of a
# line it broke are comments, grey, since the terminal did not print them.
require 'rouge'

class WorkbookSessionLexer < Rouge::RegexLexer
  title 'Workbook session'
  desc 'A gdb or crash session: prompts, commands and their output'
  tag 'session'

  WRAP_MARK = "\u21a9" # book/layout.py's WRAP_MARK (Ruby cannot import it)

  state :root do
    rule %r/^(\(gdb\) |crash> )([^\n#{WRAP_MARK}]*)/ do
      groups Generic::Prompt, Generic::Strong
    end
    rule %r/^# [^\n]*/, Comment
    rule %r/#{WRAP_MARK}$/, Comment
    rule %r/[^\n#{WRAP_MARK}]+/, Text
    rule %r/[#{WRAP_MARK}]/, Text
    rule %r/\n/, Text
  end
end
