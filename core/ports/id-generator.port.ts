export interface IdGenerator {
  newId(): string;
}
