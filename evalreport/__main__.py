from evalreport.cli import run

run()
