from oriongraph_cli.cli import main

main()
