import Foundation
import Testing
@testable import Sluice

/// Nested models (rule 5, objects), aggregation (rule 4) and one source feeding several targets (rule 3).
@Suite struct NestedModelTests {
    struct Point: Sendable, Equatable { var latitude = 0.0; var longitude = 0.0 }
    struct Location: Sendable, Equatable { var point = Point(); var distance: Double? }
    struct Person: Sendable, Equatable { var name = ""; var age: Int64? }
    struct Company: Sendable, Equatable {
        var name = ""
        var ceo: Person?
        var ceoName: String?
        var headquarters = Point()
        var branch: Point?
        var location: Location?
    }

    static func companyMapping() throws -> Mapping<Company> {
        // One point mapping, reused by three parents.
        let point = try Mapping(Point.init) {
            Field("latitude", \.latitude)
            Field("longitude", \.longitude)
        }
        let person = try Mapping(Person.init) {
            Field("name", \.name)
            Field("age", \.age)
        }
        let location = try Mapping(Location.init) {
            Field.aggregating(\.point, mapping: point)
            Field("distance", \.distance)
        }
        return try Mapping(Company.init) {
            Field("name", \.name)
            Field("company_ceo", \.ceo, mapping: person)
            Field("company_ceo.name", \.ceoName)
            Field("hq", \.headquarters, mapping: point)
            Field("branch", \.branch, mapping: point)
            Field.aggregating(\.location, mapping: location)
        }
    }

    func read(_ text: String) throws -> (companies: [Company], rejections: [String]) {
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: try Self.companyMapping(), options: ReaderOptions(shape: .ndjson, rejectionPolicy: .collect))
        var companies: [Company] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            companies += batch.models
            rejections += batch.rejections.map(\.description)
        }
        return (companies, rejections)
    }

    /// An array's elements have no key: an element mapping that reads `$key` is refused with the array's field named.
    @Test func anElementMappingThatReadsAKeyIsRefused() throws {
        struct Keyed: Sendable { var key = "" }
        struct Holder: Sendable { var items: [Keyed] = [] }
        let element = try Mapping({ Keyed() }, options: MappingOptions(recordsPath: "data"), fields: [Field("$key", \.key)])
        #expect {
            try Mapping({ Holder() }, fields: [Field("items", \.items, elements: element)])
        } throws: { error in
            "\(error)".contains("items") && "\(error)".contains("$key")
        }
    }

    @Test func nestedObjectsAggregationsAndOneSourceForTwoTargets() throws {
        let result = try read("""
            {"name":"Acme","company_ceo":{"name":"Ann","age":50},"hq":{"latitude":1.5,"longitude":2.5},"latitude":10,"longitude":20,"distance":3}
            {"name":"Bare","hq":{"latitude":0,"longitude":0}}

            """)
        #expect(result.rejections.isEmpty)
        #expect(result.companies == [
            Company(name: "Acme", ceo: Person(name: "Ann", age: 50), ceoName: "Ann", headquarters: Point(latitude: 1.5, longitude: 2.5), branch: nil,
                    location: Location(point: Point(latitude: 10, longitude: 20), distance: 3)),
            Company(name: "Bare", ceo: nil, ceoName: nil, headquarters: Point(), branch: nil, location: nil),
        ])
    }

    @Test func aPartlyPresentOptionalNestedModelNeedsItsRequiredFields() throws {
        let result = try read("""
            {"name":"X","hq":{"latitude":1,"longitude":2},"branch":{"latitude":5}}

            """)
        #expect(result.companies.isEmpty)
        #expect(result.rejections == ["record 1 (line 1, byte 0): $.branch.longitude: expected double, found no value"])
    }

    @Test func aRequiredNestedModelIsCheckedByTheEngine() throws {
        let result = try read("{\"name\":\"Y\"}\n")
        #expect(result.rejections == ["record 1 (line 1, byte 0): $.hq.latitude: expected double, found no value; $.hq.longitude: expected double, found no value"])
    }

    @Test func aFactoryMakesTheNestedInstanceFromItsParent() throws {
        struct Employee: Sendable { var name = ""; var employer = "" }
        struct Firm: Sendable { var name = ""; var boss = Employee() }
        let employee = try Mapping(Employee.init) { Field("name", \.name) }
        let firm = try Mapping(Firm.init) {
            Field("name", \.name)
            Field("boss", \.boss, mapping: employee, factory: { firm in Employee(name: "", employer: firm.name) })
        }
        let reader = try TypedReader(input: .bytes(Array(#"{"name":"Acme","boss":{"name":"Ann"}}"#.utf8)), mapping: firm)
        let made = try #require(try reader.nextModel())
        #expect(made.boss.name == "Ann" && made.boss.employer == "Acme")
    }

    @Test func nestedModelsEncodeAndUpdate() throws {
        let mapping = try Self.companyMapping()
        let company = Company(name: "Acme", ceo: Person(name: "Ann", age: nil), ceoName: "Ann", headquarters: Point(latitude: 1, longitude: 2), branch: nil,
                              location: Location(point: Point(latitude: 3, longitude: 4), distance: nil))
        let text = mapping.jsonText(of: company)
        #expect(text == #"{"name":"Acme","company_ceo":{"name":"Ann"},"hq":{"latitude":1.0,"longitude":2.0},"latitude":3.0,"longitude":4.0}"#)
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping)
        #expect(try reader.nextModel() == company)

        var updated = company
        let changed = try mapping.update(&updated, from: .bytes(Array(#"{"hq":{"latitude":9,"longitude":2}}"#.utf8)))
        #expect(updated.headquarters == Point(latitude: 9, longitude: 2))
        #expect(updated.name == "Acme" && updated.ceo == company.ceo)
        #expect(changed.count == 1)
    }

    @Test func aModelNestedInANestedModelNamesItsValuesFromTheRecordRoot() throws {
        struct Inner: Sendable, Equatable { var count: Int32 = 0; var tags: [Int] = [] }
        struct Middle: Sendable, Equatable { var inner: Inner? }
        struct Outer: Sendable, Equatable { var middle = Middle() }
        let inner = try Mapping(Inner.init) {
            Field("n", \.count)
            Field("tags", \.tags)
        }
        let middle = try Mapping(Middle.init) { Field("b", \.inner, mapping: inner) }
        let outer = try Mapping(Outer.init) { Field("a", \.middle, mapping: middle) }
        let reader = try TypedReader(input: .bytes(Array(NestedInNested.records.utf8)), mapping: outer, options: ReaderOptions(rejectionPolicy: .collect))
        let batch = try #require(try reader.next())
        #expect(batch.models == [Outer(middle: Middle(inner: Inner(count: 1, tags: [2])))])
        #expect(batch.rejections.map { $0.failures.map(\.description) } == NestedInNested.failures)
    }

    @Test func anUpdateRefusesWhatAConversionMadeWhenTheModelIsMadeRefuses() throws {
        struct Account: Sendable, Equatable { var id: Int32 = 0; var balance: Decimal = 0; var scores: [Int] = [] }
        let mapping = try Mapping(Account.init) {
            Field("id", \.id)
            Field("balance", \.balance)
            Field("scores", \.scores)
        }
        var account = Account(id: 1, balance: 5, scores: [1])
        do {
            try mapping.update(&account, from: .bytes(Array(#"{"id":3000000000,"balance":"1,5","scores":[1,"x"]}"#.utf8)))
            Issue.record("the update was accepted")
        } catch {
            guard case .rejected(let rejection) = error else { throw error }
            #expect(rejection.failures.map(\.description) == [
                "$.id: expected int32 (-2147483648 to 2147483647), found number 3000000000",
                #"$.balance: expected decimal (at most 38 significant digits), found string "1,5""#,
                #"$.scores[1]: expected int64, found string "x""#,
            ])
        }
        #expect(account == Account(id: 1, balance: 5, scores: [1]))
        let changed = try mapping.update(&account, from: .bytes(Array(#"{"id":2,"scores":[3]}"#.utf8)))
        #expect(account == Account(id: 2, balance: 5, scores: [3]))
        #expect(changed.count == 2)
    }
}
