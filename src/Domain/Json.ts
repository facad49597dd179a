/** JSON columns: the database holds what the code wrote, so parsing is trusted. */
export const parseJson = <A>(text: string): A => JSON.parse(text) as A
