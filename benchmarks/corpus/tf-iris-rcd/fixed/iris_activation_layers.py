import pandas as pd
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense, Activation, Dropout
from tensorflow.keras.callbacks import EarlyStopping
from tensorflow.keras.utils import to_categorical

iris = load_iris(as_frame=True)
df = iris.frame
print(df.describe())

features = StandardScaler().fit_transform(df.drop(columns='target').values)
labels = to_categorical(df['target'].values)
x_train, x_test, y_train, y_test = train_test_split(features, labels, test_size=0.2, random_state=11)

model = Sequential()
model.add(Dense(32, input_dim=4))
model.add(Activation('relu'))
model.add(Dropout(0.2))
model.add(Dense(3))
model.add(Activation('softmax'))
model.compile(optimizer='adam', loss='categorical_crossentropy', metrics=['accuracy'])

stopper = EarlyStopping(monitor='val_accuracy', patience=20)
model.fit(x_train, y_train, epochs=300, batch_size=16, validation_split=0.2, callbacks=[stopper])
print(model.evaluate(x_test, y_test))
