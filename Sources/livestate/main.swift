import Foundation
import Server

// The executable is a thin edge: everything lives in the Server target.
exit(LiveStateCommand.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
