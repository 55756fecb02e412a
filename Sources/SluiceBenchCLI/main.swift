import SluiceTerminal

BenchCommand.runAsProgram(named: "sluice-bench")
