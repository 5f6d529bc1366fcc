from evaudit.cli import main

main()
