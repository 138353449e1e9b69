"""The workbook's programs: figures, the kept transcripts, the render
checks, run as python3 -m book.NAME from the top."""
