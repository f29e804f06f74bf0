import pandas as pd
from keras.models import Sequential
from keras.layers import Dense
table = pd.read_csv('plants.csv').values
leaves = table[:, :6]
kinds = table[:, 6]
tree = Sequential()
tree.add(Dense(24, input_dim=6, activation='relu'))
tree.add(Dense(3, activation='softmax'))
tree.compile(loss='categorical_crossentropy', optimizer='adam')
tree.fit(leaves, kinds, epochs=40, batch_size=8)
