// expect: requires that 'Money' conform to 'MappableValue'
import Sluice

struct Money: Sendable, Equatable { var cents = 0 }
struct Order: Sendable { var id = 0; var total = Money() }
let mapping = try Mapping({ Order() }) {
    Field("id", \.id)
    Field("total", \.total)
}
