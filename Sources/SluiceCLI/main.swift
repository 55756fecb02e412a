import SluiceTerminal

SluiceCommand.runAsProgram(named: "sluice")
