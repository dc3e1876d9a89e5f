from oriongraph_cli.client import main

main()
